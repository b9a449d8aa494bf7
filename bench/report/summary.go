package report

import (
	"fmt"
	"math"
	"sort"
	"strings"
)

// Peer is the engine every ratio is taken against.
const Peer = "shadow-git"

// Median is the median of xs (the mean of the two middle values for an
// even count; NaN for none). xs is not modified.
func Median(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// PairRatios divides each repetition's value by the peer's value of the
// same repetition; repetitions the peer lacks, or where it measured 0,
// are left out.
func PairRatios(engine, peer map[int]float64) []float64 {
	var rs []float64
	for rep, v := range engine {
		if pv, ok := peer[rep]; ok && pv > 0 {
			rs = append(rs, v/pv)
		}
	}
	return rs
}

// Target is the bound on the turnback-CLI / shadow-git ratio of
// scenario on a tree of files files (0: none).
func Target(scenario string, files int) float64 {
	switch scenario {
	case "cold", "b2b-cold", "first-cold":
		if files >= 500_000 {
			return 0.3
		}
		return 0.25
	case "nochange", "turn", "size", "b2b-nochange", "b2b-turn":
		return 0.7
	case "undo", "b2b-undo":
		return 0.5
	case "first-nochange", "first-turn", "first-undo":
		// Issue #34: every capture after the first, the turn and its
		// undo, without a daemon.
		return 0.7
	}
	return 0
}

// rssTargetKB is issue #4's bound on the peak RSS of any turnback process
// on a tree of 500k files or more.
const rssTargetKB = 400 * 1000 // 400 MB

// Pass says whether engine's ratio in c meets the cell's target with no
// failed sample (false without a ratio or a target).
func Pass(c *Cell, engine string) bool {
	r, ok := c.Ratio[engine]
	return ok && c.Target > 0 && r <= c.Target && c.Failed[engine] == 0
}

// Verdict is engine's ratio to shadow git with PASS or MISS against the
// issue's target (a cell with a failed sample of engine is a MISS).
func Verdict(c *Cell, engine string) string {
	r, ok := c.Ratio[engine]
	if !ok {
		return "—"
	}
	s := fmt.Sprintf("%.2f", r)
	if c.Target > 0 {
		if Pass(c, engine) {
			s += fmt.Sprintf(" PASS (≤%.2g)", c.Target)
		} else {
			s += fmt.Sprintf(" MISS (≤%.2g)", c.Target)
		}
	}
	return s
}

// cliEngine says whether engine runs turnback CLI processes.
func cliEngine(engine string) bool {
	switch engine {
	case "turnback-cli", "turnback-cli-nowatch", "turnback-daemon":
		return true
	}
	return false
}

// Summarize computes res.Summary from the measured samples: per scenario
// and tree, each engine's median, min, max, CPU median and foreign CPU
// share, its pairwise ratios to shadow git, and the CLI's verdict.
func Summarize(res *Results) {
	res.Summary = nil
	for _, sc := range summarized() {
		for _, tr := range res.Trees {
			if c := summarizeCell(res.Samples, sc, tr); c != nil {
				res.Summary = append(res.Summary, c)
			}
		}
	}
}

// byRep is an engine's measured values by repetition.
type byRep map[string]map[int]float64

func (b byRep) set(engine string, rep int, v float64) {
	if b[engine] == nil {
		b[engine] = map[int]float64{}
	}
	b[engine][rep] = v
}

func summarizeCell(samples []*Sample, sc string, tr *TreeResult) *Cell {
	c := &Cell{Scenario: sc, Tree: tr.Name, Files: tr.Files, Median: map[string]float64{}, Min: map[string]float64{}, Max: map[string]float64{},
		N: map[string]int{}, Failed: map[string]int{}, Foreign: map[string]float64{}, Ratio: map[string]float64{}, RatioN: map[string]int{},
		CPU: map[string]float64{}, CPURatio: map[string]float64{}}
	wall, cpu, foreign := byRep{}, byRep{}, map[string][]float64{}
	measured := false
	for _, s := range samples {
		if s.Tree != tr.Name || s.Scenario != sc || s.Warmup {
			continue
		}
		measured = true
		if !s.OK {
			c.Failed[s.Engine]++
			continue
		}
		v := s.Seconds
		if sc == "size" {
			v = float64(s.Bytes)
		}
		wall.set(s.Engine, s.Rep, v)
		if cpu[s.Engine] == nil {
			cpu[s.Engine] = map[int]float64{}
		}
		if s.CPUSeconds > 0 { // 0: not measured
			cpu[s.Engine][s.Rep] = s.CPUSeconds
		}
		foreign[s.Engine] = append(foreign[s.Engine], s.ForeignCPU)
		if cliEngine(s.Engine) && s.MaxRSSKB > c.PeakRSSKB {
			c.PeakRSSKB = s.MaxRSSKB
		}
	}
	if !measured {
		return nil
	}
	for e, reps := range wall {
		xs := values(reps)
		sort.Float64s(xs)
		c.Median[e], c.Min[e], c.Max[e], c.N[e] = Median(xs), xs[0], xs[len(xs)-1], len(xs)
		c.Foreign[e] = Median(foreign[e])
		if cs := values(cpu[e]); len(cs) > 0 {
			c.CPU[e] = Median(cs)
		}
	}
	if wall[Peer] != nil {
		for e := range wall {
			if e == Peer {
				continue
			}
			if rs := PairRatios(wall[e], wall[Peer]); len(rs) > 0 {
				c.Ratio[e], c.RatioN[e] = Median(rs), len(rs)
			}
			if cr := PairRatios(cpu[e], cpu[Peer]); len(cr) > 0 {
				c.CPURatio[e] = Median(cr)
			}
		}
	}
	if t := Target(sc, tr.Files); t > 0 {
		c.Target = t
		judged := "turnback-cli"
		if strings.HasPrefix(sc, "first-") {
			judged = "turnback-cli-nowatch" // the scenario runs no daemon
		}
		if _, ok := c.Ratio[judged]; ok {
			p := Pass(c, judged)
			c.Pass = &p
		}
	}
	return c
}

func values(m map[int]float64) []float64 {
	var xs []float64
	for _, v := range m {
		xs = append(xs, v)
	}
	return xs
}
