package report

import "fmt"

// Issue #19's targets: the CLI without a daemon against shadow git, the
// undo through a daemon on the 10k tree, and the automatic daemon's
// start-up against one no-daemon no-change capture of the same tree.
var noDaemonTargets = []struct {
	scenario, tree string
	bound          float64
}{
	{"nochange", "go", 1.0}, {"nochange", "100k", 0.6},
	{"turn", "go", 1.0}, {"turn", "100k", 0.6},
	{"undo", "go", 1.0},
}

const (
	daemonUndoTarget     = 0.5 // undo through the daemon / shadow git, 10k
	startupRatioTarget   = 1.5 // snap exit -> ready / no-daemon no-change capture, 1M
	startupTargetTree    = "1m"
	daemonUndoTargetTree = "10k"
)

// speedRows checks issue #19's targets on what the run measured: one row
// per target, "not run" where a side is missing. Rows: target, tree,
// measured, verdict.
func speedRows(res *Results) [][]string {
	cell := func(sc, tree string) *Cell {
		for _, c := range res.Summary {
			if c.Scenario == sc && c.Tree == tree {
				return c
			}
		}
		return nil
	}
	verdict := func(ok bool) string {
		if ok {
			return "PASS"
		}
		return "MISS"
	}
	var rows [][]string
	const nw = "turnback-cli-nowatch"
	for _, t := range noDaemonTargets {
		label := fmt.Sprintf("%s without a daemon (%s) / shadow git ≤ %.1f", scenarioLabels[t.scenario], engineLabels[nw], t.bound)
		c := cell(t.scenario, t.tree)
		r, ok := 0.0, false
		if c != nil {
			r, ok = c.Ratio[nw]
		}
		if !ok {
			rows = append(rows, []string{label, t.tree, "not run", "—"})
			continue
		}
		rows = append(rows, []string{label, t.tree, fmt.Sprintf("%.2f (%s, shadow git %s; %d pairs)", r, fmtDur(c.Median[nw]), fmtDur(c.Median[Peer]), c.RatioN[nw]),
			verdict(r <= t.bound && c.Failed[nw] == 0)})
	}
	// The undo through a daemon: the explicit daemon engine when it ran,
	// else the CLI with its automatic daemon.
	de := "turnback-daemon"
	c := cell("undo", daemonUndoTargetTree)
	if c != nil && c.N[de] == 0 {
		de = "turnback-cli"
	}
	label := fmt.Sprintf("undo through the daemon (%s) / shadow git ≤ %.1f", engineLabels[de], daemonUndoTarget)
	if r, ok := 0.0, false; c != nil {
		if r, ok = c.Ratio[de]; ok {
			rows = append(rows, []string{label, daemonUndoTargetTree, fmt.Sprintf("%.2f (%s, shadow git %s; %d pairs)", r, fmtDur(c.Median[de]), fmtDur(c.Median[Peer]), c.RatioN[de]),
				verdict(r <= daemonUndoTarget && c.Failed[de] == 0)})
		}
	}
	if len(rows) == len(noDaemonTargets) {
		rows = append(rows, []string{label, daemonUndoTargetTree, "not run", "—"})
	}
	// Start-up: every tree where both sides ran; the bound is the 1M
	// tree's.
	found := false
	for _, tr := range res.Trees {
		ss, note := coldSamples(res, tr, "turnback-cli")
		up := infoMedian(ss, "autostart_seconds")
		nc := cell("nochange", tr.Name)
		if len(ss) == 0 || up <= 0 || nc == nil || nc.N[nw] == 0 {
			continue
		}
		found = true
		r := up / nc.Median[nw]
		v := "— (the bound is the 1M tree's)"
		if tr.Name == startupTargetTree {
			v = verdict(r <= startupRatioTarget)
		}
		rows = append(rows, []string{fmt.Sprintf("automatic daemon's start-up (snap exit → ready) / one no-daemon no-change capture ≤ %.1f", startupRatioTarget), tr.Name,
			fmt.Sprintf("%.2f (start-up %s%s, no-daemon no-change capture %s)", r, fmtDur(up), note, fmtDur(nc.Median[nw])), v})
	}
	if !found {
		rows = append(rows, []string{fmt.Sprintf("automatic daemon's start-up (snap exit → ready) / one no-daemon no-change capture ≤ %.1f", startupRatioTarget), startupTargetTree, "not run", "—"})
	}
	return rows
}
