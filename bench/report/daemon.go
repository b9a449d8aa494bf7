package report

import (
	"fmt"
	"sort"
	"strings"
)

// Issue #5's targets for the watch daemon.
const (
	daemonTurnRatioTarget = 0.1   // turn capture, daemon / shadow git, 100k and 1M
	daemonNoChangeTarget  = 0.020 // no-change snap, seconds, 100k
)

// daemonView is the report's issue #5 table and the daemons' details.
type daemonView struct {
	// Issue5Engine is the label of the engine issue #5's targets are
	// checked on ("": it did not run); Issue5Auto says it is the CLI with
	// its automatic daemon.
	Issue5Engine string
	Issue5Auto   bool
	Issue5       [][]string
	// ShowAuto and ShowDetach: the sections of the automatic daemon and
	// of the one started by watch --detach; their rows per tree.
	ShowAuto, ShowDetach bool
	Auto, Detach         [][]string
}

// hasDaemonSection says whether any engine ran a watch daemon.
func hasDaemonSection(res *Results) bool {
	for _, s := range res.Samples {
		if s.Engine == "turnback-daemon" || (s.Engine == "turnback-cli" && res.CLIAutoWatch) {
			return true
		}
	}
	for _, tr := range res.Trees {
		if len(tr.Daemons) > 0 || tr.Daemon != nil {
			return true
		}
	}
	return false
}

// walkCells renders how captures through a daemon read the tree: full
// walks (reason: count), bold when any.
func walkCells(dc *DaemonCounts) string {
	var walks []string
	for why, n := range dc.FullWalks {
		walks = append(walks, fmt.Sprintf("%s: %d", why, n))
	}
	sort.Strings(walks)
	if len(walks) == 0 {
		return "none"
	}
	return "**" + strings.Join(walks, "; ") + "**"
}

// turnDirsRead is the median count of directories the daemon read in
// engine's measured turn captures on tree.
func turnDirsRead(res *Results, tree, engine string) string {
	var dirs []float64
	for _, s := range res.Samples {
		if s.Tree == tree && s.Engine == engine && s.Scenario == "turn" && !s.Warmup && s.OK {
			if v, ok := InfoFloat(s.Info, "watch_dirs_read"); ok {
				dirs = append(dirs, v)
			}
		}
	}
	if len(dirs) == 0 {
		return "—"
	}
	return fmt.Sprintf("%.0f", Median(dirs))
}

func daemonSection(res *Results) *daemonView {
	v := &daemonView{}
	hasEngine := map[string]bool{}
	for _, s := range res.Samples {
		hasEngine[s.Engine] = true
	}
	// Issue #5 is about turnback with its daemon: the explicit daemon
	// engine when it ran, else the CLI with its automatic daemon.
	de := "turnback-daemon"
	if !hasEngine[de] && res.CLIAutoWatch && hasEngine["turnback-cli"] {
		de = "turnback-cli"
	}
	if hasEngine[de] {
		v.Issue5Engine, v.Issue5Auto = engineLabels[de], de == "turnback-cli"
		v.Issue5 = issue5Rows(res, de)
	}
	if v.ShowAuto = res.CLIAutoWatch && hasEngine["turnback-cli"]; v.ShowAuto {
		v.Auto = daemonRows(res, "turnback-cli", autoRow)
	}
	if v.ShowDetach = hasEngine["turnback-daemon"]; v.ShowDetach {
		v.Detach = daemonRows(res, "turnback-daemon", detachRow)
	}
	return v
}

// issue5Rows checks issue #5's targets on engine de: the turn capture
// ratio on the 100k and 1M trees, the no-change snap on 100k.
func issue5Rows(res *Results, de string) [][]string {
	cell := func(sc, tree string) *Cell {
		for _, c := range res.Summary {
			if c.Scenario == sc && c.Tree == tree {
				return c
			}
		}
		return nil
	}
	var rows [][]string
	for _, tree := range []string{"100k", "1m"} {
		label := fmt.Sprintf("turn capture: %s / shadow git ≤ %.1f", engineLabels[de], daemonTurnRatioTarget)
		c := cell("turn", tree)
		r, ok := 0.0, false
		if c != nil {
			r, ok = c.Ratio[de]
		}
		if !ok {
			rows = append(rows, []string{label, tree, "not run", "—"})
			continue
		}
		v := "PASS"
		if r > daemonTurnRatioTarget || c.Failed[de] > 0 {
			v = "MISS"
		}
		rows = append(rows, []string{label, tree, fmt.Sprintf("%.3f (%s %s, shadow git %s; %d pairs)", r, engineLabels[de], fmtDur(c.Median[de]), fmtDur(c.Median[Peer]), c.RatioN[de]), v})
	}
	label := fmt.Sprintf("no-change snap through the daemon (%s) ≤ %.0f ms", engineLabels[de], daemonNoChangeTarget*1000)
	c := cell("nochange", "100k")
	if c == nil || c.N[de] == 0 {
		return append(rows, []string{label, "100k", "not run", "—"})
	}
	v := "PASS"
	if c.Median[de] > daemonNoChangeTarget || c.Failed[de] > 0 {
		v = "MISS"
	}
	return append(rows, []string{label, "100k", fmt.Sprintf("%.1f ms median (min %.1f, max %.1f; shadow git %s)", c.Median[de]*1000, c.Min[de]*1000, c.Max[de]*1000, fmtDur(c.Median[Peer])), v})
}

// coldSamples are engine's measured cold captures on tr that succeeded,
// or else its untimed first capture, with a note saying so.
func coldSamples(res *Results, tr *TreeResult, engine string) ([]*Sample, string) {
	var ss []*Sample
	for _, s := range res.Samples {
		if s.Tree == tr.Name && s.Engine == engine && s.Scenario == "cold" && !s.Warmup && s.OK {
			ss = append(ss, s)
		}
	}
	if len(ss) == 0 {
		if s := tr.FirstCapture[engine]; s != nil && s.OK {
			return []*Sample{s}, " (untimed setup, 1 run)"
		}
	}
	return ss, ""
}

// infoMedian is the median of an Info number over samples that have it.
func infoMedian(ss []*Sample, k string) float64 {
	var xs []float64
	for _, s := range ss {
		if v, ok := InfoFloat(s.Info, k); ok {
			xs = append(xs, v)
		}
	}
	return Median(xs)
}

// daemonRSS is a daemon's peak RSS cell.
func daemonRSS(dc *DaemonCounts) string {
	if dc.PeakRSSKB > 0 {
		return fmtMB(dc.PeakRSSKB)
	}
	return "—"
}

// daemonRun is what an engine's daemons did on a tree: its cold
// samples (see coldSamples) and its counts.
type daemonRun struct {
	tree string
	cold []*Sample
	note string
	dc   *DaemonCounts
}

// coldSeconds are the times of the run's cold captures.
func (d *daemonRun) coldSeconds() []float64 {
	var xs []float64
	for _, s := range d.cold {
		xs = append(xs, s.Seconds)
	}
	return xs
}

// daemonRows makes row's row for every tree on which engine's daemons
// ran (counts, cold samples or both).
func daemonRows(res *Results, engine string, row func(res *Results, d *daemonRun) []string) [][]string {
	var rows [][]string
	for _, tr := range res.Trees {
		ss, note := coldSamples(res, tr, engine)
		dc := TreeDaemon(tr, engine)
		if len(ss) == 0 && dc == nil {
			continue
		}
		if dc == nil {
			dc = &DaemonCounts{}
		}
		rows = append(rows, row(res, &daemonRun{tree: tr.Name, cold: ss, note: note, dc: dc}))
	}
	return rows
}

// autoRow is the automatic daemon's row (turnback-cli).
func autoRow(res *Results, d *daemonRun) []string {
	results := map[string]int{}
	for _, s := range d.cold {
		if r, ok := s.Info["autostart"].(string); ok {
			results[r]++
		}
	}
	var rs []string
	for r, n := range results {
		rs = append(rs, fmt.Sprintf("%s ×%d", r, n))
	}
	sort.Strings(rs)
	dc := d.dc
	return []string{d.tree, fmtDur(Median(d.coldSeconds())) + d.note, fmtDur(infoMedian(d.cold, "autostart_seconds")), fmtDur(infoMedian(d.cold, "autostart_daemon_cpu_seconds")), strings.Join(rs, "; "),
		daemonRSS(dc), fmt.Sprint(dc.Captures), fmt.Sprint(dc.Incremental), walkCells(dc), fmt.Sprint(dc.NotForwarded), fmt.Sprint(dc.NoDaemon), fmt.Sprint(dc.Restarts), turnDirsRead(res, d.tree, "turnback-cli")}
}

// detachRow is the row of the daemon started by watch --detach
// (turnback-daemon).
func detachRow(res *Results, d *daemonRun) []string {
	dc := d.dc
	return []string{d.tree, fmtDur(infoMedian(d.cold, "detach_seconds")) + d.note, fmtDur(infoMedian(d.cold, "first_snap_seconds")), fmtDur(Median(d.coldSeconds())), fmtDur(infoMedian(d.cold, "daemon_cpu_seconds")),
		daemonRSS(dc), fmt.Sprint(dc.Captures), fmt.Sprint(dc.Incremental), walkCells(dc), fmt.Sprint(dc.NotForwarded), fmt.Sprint(dc.Restarts), turnDirsRead(res, d.tree, "turnback-daemon")}
}
