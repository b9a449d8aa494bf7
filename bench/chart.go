//go:build linux

package main

import (
	"fmt"
	"html"
	"math"
	"sort"
	"strings"
)

var engineColors = map[string]string{
	"turnback-cli":         "#d62728",
	"turnback-cli-nowatch": "#8c564b",
	"turnback-daemon":      "#9467bd",
	"turnback-api":         "#ff7f0e",
	"shadow-git":           "#1f77b4",
	"restic":               "#2ca02c",
}

// chart draws one panel per scenario: median time (or store size) against
// the tree's file count, both axes logarithmic, one polyline per engine.
func chart(res *Results) string {
	const pw, ph = 460, 320 // panel size
	const ml, mr, mt, mb = 70, 20, 40, 60
	var panels []string
	for _, sc := range allScenarios {
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
		ox, oy := (pi%cols)*pw, 40+(pi/cols)*ph
		x0, x1 := float64(ox+ml), float64(ox+pw-mr)
		y0, y1 := float64(oy+ph-mb), float64(oy+mt)
		var cells []*Cell
		for _, c := range res.Summary {
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
			continue
		}
		// x: the trees' file counts with a margin; decade grid lines inside.
		lx0, lx1 := math.Log10(minX)-0.25, math.Log10(maxX)+0.25
		ly0, ly1 := math.Floor(math.Log10(minY)), math.Ceil(math.Log10(maxY))
		if ly1 == ly0 {
			ly1++
		}
		px := func(v float64) float64 { return x0 + (math.Log10(v)-lx0)/(lx1-lx0)*(x1-x0) }
		py := func(v float64) float64 { return y0 - (math.Log10(v)-ly0)/(ly1-ly0)*(y0-y1) }
		title := scenarioLabels[sc] + " (time)"
		if sc == "size" {
			title = "store size on disk"
		}
		fmt.Fprintf(&b, `<text x="%.0f" y="%d" font-size="13" text-anchor="middle">%s</text>`+"\n", (x0+x1)/2, oy+20, html.EscapeString(title))
		// Axes and grid.
		fmt.Fprintf(&b, `<line x1="%.0f" y1="%.0f" x2="%.0f" y2="%.0f" stroke="black"/>`+"\n", x0, y0, x1, y0)
		fmt.Fprintf(&b, `<line x1="%.0f" y1="%.0f" x2="%.0f" y2="%.0f" stroke="black"/>`+"\n", x0, y0, x0, y1)
		for e := ly0; e <= ly1; e++ {
			v := math.Pow(10, e)
			y := py(v)
			fmt.Fprintf(&b, `<line x1="%.0f" y1="%.1f" x2="%.0f" y2="%.1f" stroke="#ddd"/>`+"\n", x0, y, x1, y)
			label := fmtDur(v)
			if sc == "size" {
				label = fmtBytes(v)
			}
			fmt.Fprintf(&b, `<text x="%.0f" y="%.1f" text-anchor="end">%s</text>`+"\n", x0-4, y+4, label)
		}
		for e := math.Ceil(lx0); e <= lx1; e++ {
			x := px(math.Pow(10, e))
			fmt.Fprintf(&b, `<line x1="%.1f" y1="%.0f" x2="%.1f" y2="%.0f" stroke="#eee"/>`+"\n", x, y0, x, y1)
			fmt.Fprintf(&b, `<text x="%.1f" y="%.0f" text-anchor="middle" fill="#888">%s</text>`+"\n", x, y0+14, fmtCount(int(math.Pow(10, e))))
		}
		// Tree labels at their file counts (alternating rows so close
		// trees such as go and 10k stay readable).
		for i, c := range cells {
			x := px(float64(c.Files))
			fmt.Fprintf(&b, `<line x1="%.1f" y1="%.0f" x2="%.1f" y2="%.0f" stroke="black"/>`+"\n", x, y0, x, y0+4)
			fmt.Fprintf(&b, `<text x="%.1f" y="%.0f" text-anchor="middle">%s</text>`+"\n", x, y0+28+float64(i%2)*12, html.EscapeString(c.Tree))
		}
		fmt.Fprintf(&b, `<text x="%.0f" y="%.0f" text-anchor="middle" fill="#555">files in tree (log)</text>`+"\n", (x0+x1)/2, y0+54)
		// One polyline per engine.
		li := 0
		for _, e := range engineOrder {
			var pts []string
			for _, c := range cells {
				if v, ok := c.Median[e]; ok && v > 0 {
					pts = append(pts, fmt.Sprintf("%.1f,%.1f", px(float64(c.Files)), py(v)))
				}
			}
			if len(pts) == 0 {
				continue
			}
			col := engineColors[e]
			fmt.Fprintf(&b, `<polyline fill="none" stroke="%s" stroke-width="2" points="%s"/>`+"\n", col, strings.Join(pts, " "))
			for _, p := range pts {
				xy := strings.Split(p, ",")
				fmt.Fprintf(&b, `<circle cx="%s" cy="%s" r="3" fill="%s"/>`+"\n", xy[0], xy[1], col)
			}
			// Legend.
			lx, ly := x0+8, y1+4+float64(li)*14
			fmt.Fprintf(&b, `<line x1="%.0f" y1="%.0f" x2="%.0f" y2="%.0f" stroke="%s" stroke-width="2"/>`+"\n", lx, ly, lx+16, ly, col)
			fmt.Fprintf(&b, `<text x="%.0f" y="%.0f">%s</text>`+"\n", lx+20, ly+4, html.EscapeString(engineLabels[e]))
			li++
		}
	}
	b.WriteString("</svg>\n")
	return b.String()
}
