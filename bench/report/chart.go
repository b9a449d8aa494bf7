package report

import (
	"fmt"
	"html"
	"math"
	"sort"
	"strings"
)

// Panel size and margins of the chart.
const (
	pw, ph         = 460, 320
	ml, mr, mt, mb = 70, 20, 40, 60
)

var engineColors = map[string]string{
	"turnback-cli":         "#d62728",
	"turnback-cli-nowatch": "#8c564b",
	"turnback-daemon":      "#9467bd",
	"turnback-api":         "#ff7f0e",
	"shadow-git":           "#1f77b4",
	"restic":               "#2ca02c",
}

// Chart draws one panel per scenario: median time (or store size) against
// the tree's file count, both axes logarithmic, one polyline per engine.
func Chart(res *Results) string {
	var panels []string
	for _, sc := range Scenarios {
		for _, c := range res.Summary {
			if c.Scenario == sc {
				panels = append(panels, sc)
				break
			}
		}
	}
	cols := 2
	rows := (len(panels) + cols - 1) / cols
	W, H := cols*pw, rows*ph+40
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="11">`+"\n", W, H, W, H)
	fmt.Fprintf(&b, `<rect width="100%%" height="100%%" fill="white"/>`+"\n")
	fmt.Fprintf(&b, `<text x="%d" y="22" font-size="15" text-anchor="middle">turnback vs shadow git: median per tree (log-log), %s</text>`+"\n", W/2, html.EscapeString(res.Machine.Date))
	for pi, sc := range panels {
		drawPanel(&b, res.Summary, sc, (pi%cols)*pw, 40+(pi/cols)*ph)
	}
	b.WriteString("</svg>\n")
	return b.String()
}

// panel is one scenario's plot area: its pixel box and log scales.
type panel struct {
	x0, x1, y0, y1 float64 // plot box (y0 is the bottom)
	lx0, lx1       float64 // log10 of the x range
	ly0, ly1       float64 // log10 of the y range
}

func (p *panel) px(v float64) float64 { return p.x0 + (math.Log10(v)-p.lx0)/(p.lx1-p.lx0)*(p.x1-p.x0) }
func (p *panel) py(v float64) float64 { return p.y0 - (math.Log10(v)-p.ly0)/(p.ly1-p.ly0)*(p.y0-p.y1) }

// drawPanel draws the panel of scenario sc with its top left corner at
// (ox, oy); a scenario with no positive median draws nothing.
func drawPanel(b *strings.Builder, summary []*Cell, sc string, ox, oy int) {
	var cells []*Cell
	for _, c := range summary {
		if c.Scenario == sc {
			cells = append(cells, c)
		}
	}
	sort.Slice(cells, func(i, j int) bool { return cells[i].Files < cells[j].Files })
	minX, maxX := math.Inf(1), math.Inf(-1)
	minY, maxY := math.Inf(1), math.Inf(-1)
	for _, c := range cells {
		minX, maxX = math.Min(minX, float64(c.Files)), math.Max(maxX, float64(c.Files))
		for _, v := range c.Median {
			if v > 0 {
				minY, maxY = math.Min(minY, v), math.Max(maxY, v)
			}
		}
	}
	if math.IsInf(minY, 0) {
		return
	}
	// x: the trees' file counts with a margin; decade grid lines inside.
	p := &panel{x0: float64(ox + ml), x1: float64(ox + pw - mr), y0: float64(oy + ph - mb), y1: float64(oy + mt),
		lx0: math.Log10(minX) - 0.25, lx1: math.Log10(maxX) + 0.25, ly0: math.Floor(math.Log10(minY)), ly1: math.Ceil(math.Log10(maxY))}
	if p.ly1 == p.ly0 {
		p.ly1++
	}
	title := scenarioLabels[sc] + " (time)"
	if sc == "size" {
		title = "store size on disk"
	}
	fmt.Fprintf(b, `<text x="%.0f" y="%d" font-size="13" text-anchor="middle">%s</text>`+"\n", (p.x0+p.x1)/2, oy+20, html.EscapeString(title))
	p.axes(b, sc, cells)
	p.lines(b, cells)
}

// axes draws the axes, the decade grid and the trees' labels.
func (p *panel) axes(b *strings.Builder, sc string, cells []*Cell) {
	x0, x1, y0, y1 := p.x0, p.x1, p.y0, p.y1
	fmt.Fprintf(b, `<line x1="%.0f" y1="%.0f" x2="%.0f" y2="%.0f" stroke="black"/>`+"\n", x0, y0, x1, y0)
	fmt.Fprintf(b, `<line x1="%.0f" y1="%.0f" x2="%.0f" y2="%.0f" stroke="black"/>`+"\n", x0, y0, x0, y1)
	for e := p.ly0; e <= p.ly1; e++ {
		v := math.Pow(10, e)
		y := p.py(v)
		fmt.Fprintf(b, `<line x1="%.0f" y1="%.1f" x2="%.0f" y2="%.1f" stroke="#ddd"/>`+"\n", x0, y, x1, y)
		label := fmtDur(v)
		if sc == "size" {
			label = fmtBytes(v)
		}
		fmt.Fprintf(b, `<text x="%.0f" y="%.1f" text-anchor="end">%s</text>`+"\n", x0-4, y+4, label)
	}
	for e := math.Ceil(p.lx0); e <= p.lx1; e++ {
		x := p.px(math.Pow(10, e))
		fmt.Fprintf(b, `<line x1="%.1f" y1="%.0f" x2="%.1f" y2="%.0f" stroke="#eee"/>`+"\n", x, y0, x, y1)
		fmt.Fprintf(b, `<text x="%.1f" y="%.0f" text-anchor="middle" fill="#888">%s</text>`+"\n", x, y0+14, fmtCount(int(math.Pow(10, e))))
	}
	// Tree labels at their file counts (alternating rows so close
	// trees such as go and 10k stay readable).
	for i, c := range cells {
		x := p.px(float64(c.Files))
		fmt.Fprintf(b, `<line x1="%.1f" y1="%.0f" x2="%.1f" y2="%.0f" stroke="black"/>`+"\n", x, y0, x, y0+4)
		fmt.Fprintf(b, `<text x="%.1f" y="%.0f" text-anchor="middle">%s</text>`+"\n", x, y0+28+float64(i%2)*12, html.EscapeString(c.Tree))
	}
	fmt.Fprintf(b, `<text x="%.0f" y="%.0f" text-anchor="middle" fill="#555">files in tree (log)</text>`+"\n", (x0+x1)/2, y0+54)
}

// lines draws one polyline per engine, with its legend entry.
func (p *panel) lines(b *strings.Builder, cells []*Cell) {
	li := 0
	for _, e := range engineOrder {
		var pts []string
		for _, c := range cells {
			if v, ok := c.Median[e]; ok && v > 0 {
				pts = append(pts, fmt.Sprintf("%.1f,%.1f", p.px(float64(c.Files)), p.py(v)))
			}
		}
		if len(pts) == 0 {
			continue
		}
		col := engineColors[e]
		fmt.Fprintf(b, `<polyline fill="none" stroke="%s" stroke-width="2" points="%s"/>`+"\n", col, strings.Join(pts, " "))
		for _, pt := range pts {
			xy := strings.Split(pt, ",")
			fmt.Fprintf(b, `<circle cx="%s" cy="%s" r="3" fill="%s"/>`+"\n", xy[0], xy[1], col)
		}
		// Legend.
		lx, ly := p.x0+8, p.y1+4+float64(li)*14
		fmt.Fprintf(b, `<line x1="%.0f" y1="%.0f" x2="%.0f" y2="%.0f" stroke="%s" stroke-width="2"/>`+"\n", lx, ly, lx+16, ly, col)
		fmt.Fprintf(b, `<text x="%.0f" y="%.0f">%s</text>`+"\n", lx+20, ly+4, html.EscapeString(engineLabels[e]))
		li++
	}
}
