package report

import (
	_ "embed"
	"fmt"
	"sort"
	"strings"
	"sync"
	"text/template"
	"time"
)

//go:embed report.md.tmpl
var markdownTemplate string

// parsed is the parsed template (parsed once).
var parsed = sync.OnceValues(func() (*template.Template, error) {
	return template.New("report.md.tmpl").Parse(markdownTemplate)
})

// view is what the template renders: the results' facts as formatted
// strings, table rows as cells.
type view struct {
	M       Machine
	Took    string
	Engines string
	Cfg     *Config
	Skipped []string
	// Which engines ran: the explicit daemon, the CLI without watch, the
	// CLI, and the CLI with its automatic daemon.
	Daemon, NoWatch, CLI, CLIAuto bool
	Labels                        []string // engine columns
	Main                          [][]string
	RSS                           []rssRow
	Watch                         *daemonView // nil: no engine ran a daemon
	Speed                         [][]string  // issue #19's targets
	CPU                           [][]string
	Trees                         [][]string
	Undos, Failures               []string
	Noise                         [][]string
	Noisy                         int
}

// rssRow is a peak-RSS row of the main table: a label, the tree, and the
// value in the last column.
type rssRow struct {
	Label, Tree, Files, Value string
}

// Markdown renders the report (results.md) of summarized results.
func Markdown(res *Results) (string, error) {
	v := &view{M: res.Machine, Took: res.Finished.Sub(res.Started).Round(time.Second).String(), Engines: strings.Join(res.Engines, ", "),
		Cfg: res.Config, Skipped: res.Skipped}
	hasEngine := map[string]bool{}
	for _, e := range res.Engines {
		hasEngine[e] = true
	}
	for _, s := range res.Samples { // merged reports
		hasEngine[s.Engine] = true
	}
	v.Daemon, v.NoWatch, v.CLI = hasEngine["turnback-daemon"], hasEngine["turnback-cli-nowatch"], hasEngine["turnback-cli"]
	v.CLIAuto = v.CLI && res.CLIAutoWatch
	var cols []string
	for _, e := range engineOrder {
		if hasEngine[e] {
			cols = append(cols, e)
			v.Labels = append(v.Labels, engineLabels[e])
		}
	}
	v.mainTable(res, cols)
	v.rssRows(res)
	if hasDaemonSection(res) {
		v.Watch = daemonSection(res)
	}
	v.Speed = speedRows(res)
	v.cpuTable(res, cols)
	v.treeRows(res)
	v.correctness(res)
	v.noise(res, cols)
	tmpl, err := parsed()
	if err != nil {
		return "", fmt.Errorf("report: %w", err)
	}
	var b strings.Builder
	if err := tmpl.Execute(&b, v); err != nil {
		return "", fmt.Errorf("report: %w", err)
	}
	return b.String(), nil
}

// medianCell is an engine's median in c, with its failures.
func medianCell(c *Cell, e string) string {
	v, ok := c.Median[e]
	cell := "—"
	if ok {
		if c.Scenario == "size" {
			cell = fmtBytes(v)
		} else {
			cell = fmtDur(v)
		}
	}
	if f := c.Failed[e]; f > 0 {
		cell += fmt.Sprintf(" **(%d failed)**", f)
	}
	return cell
}

// ratioCell is a ratio without a verdict ("—" when none).
func ratioCell(ratios map[string]float64, e string) string {
	if r, ok := ratios[e]; ok {
		return fmt.Sprintf("%.2f", r)
	}
	return "—"
}

// mainTable is a row per scenario and tree: the engines' medians, the
// ratios to shadow git with their verdicts, and the CLI's peak RSS.
func (v *view) mainTable(res *Results, cols []string) {
	for _, c := range res.Summary {
		row := []string{scenarioLabels[c.Scenario], c.Tree, fmtCount(c.Files)}
		for _, e := range cols {
			row = append(row, medianCell(c, e))
		}
		row = append(row, Verdict(c, "turnback-cli"))
		if v.NoWatch {
			r := ratioCell(c.Ratio, "turnback-cli-nowatch")
			if strings.HasPrefix(c.Scenario, "first-") {
				// The first-captures targets are for the CLI without a daemon.
				r = Verdict(c, "turnback-cli-nowatch")
			}
			if f := c.Failed["turnback-cli-nowatch"]; f > 0 && r != "—" {
				r += fmt.Sprintf(" (%d failed)", f)
			}
			row = append(row, r)
		}
		if v.Daemon {
			row = append(row, Verdict(c, "turnback-daemon"))
		}
		rss := "—"
		if c.PeakRSSKB > 0 {
			rss = fmtMB(c.PeakRSSKB)
		}
		v.Main = append(v.Main, append(row, ratioCell(c.Ratio, "turnback-api"), rss))
	}
}

// rssRows are the peak RSS rows: the CLI clients' per tree, then each
// engine's watch daemons', with issue #4's verdict on trees of 500k
// files or more.
func (v *view) rssRows(res *Results) {
	add := func(label string, tr *TreeResult, kb int64, suffix string) {
		verdict := ""
		if tr.Files >= 500_000 {
			if kb < rssTargetKB {
				verdict = " PASS (<400 MB)"
			} else {
				verdict = " MISS (<400 MB)"
			}
		}
		v.RSS = append(v.RSS, rssRow{Label: label, Tree: tr.Name, Files: fmtCount(tr.Files), Value: fmtMB(kb) + suffix + verdict})
	}
	for _, tr := range res.Trees {
		if tr.CLIPeakRSSKB > 0 {
			add("peak RSS, any turnback CLI command (client processes)", tr, tr.CLIPeakRSSKB, "")
		}
	}
	for _, e := range []string{"turnback-cli", "turnback-daemon"} {
		label := "peak RSS of the watch daemon started automatically (turnback CLI)"
		if e == "turnback-daemon" {
			label = "peak RSS of the watch daemon started by watch --detach (turnback daemon)"
		}
		for _, tr := range res.Trees {
			if dc := TreeDaemon(tr, e); dc != nil && dc.PeakRSSKB > 0 {
				add(label, tr, dc.PeakRSSKB, " (daemon)")
			}
		}
	}
}

// cpuTable is a row per scenario and tree (store size aside): the
// engines' median CPU times and the CPU-time ratios to shadow git.
func (v *view) cpuTable(res *Results, cols []string) {
	ratioCols := []string{"turnback-cli"}
	if v.NoWatch {
		ratioCols = append(ratioCols, "turnback-cli-nowatch")
	}
	if v.Daemon {
		ratioCols = append(ratioCols, "turnback-daemon")
	}
	ratioCols = append(ratioCols, "turnback-api")
	for _, c := range res.Summary {
		if c.Scenario == "size" {
			continue
		}
		row := []string{scenarioLabels[c.Scenario], c.Tree}
		for _, e := range cols {
			cell := "—"
			if x, ok := c.CPU[e]; ok {
				cell = fmtDur(x)
			}
			row = append(row, cell)
		}
		for _, e := range ratioCols {
			row = append(row, ratioCell(c.CPURatio, e))
		}
		v.CPU = append(v.CPU, row)
	}
}

// treeRows describe the trees and how long each step took.
func (v *view) treeRows(res *Results) {
	for _, tr := range res.Trees {
		prep := fmt.Sprintf("%.1f s", tr.PrepSecs)
		if tr.Cached {
			prep = "cached"
			if g, ok := tr.Info["generation_seconds_when_made"].(float64); ok {
				prep = fmt.Sprintf("cached (generated in %.0f s)", g)
			}
		}
		var steps []string
		for _, k := range []string{"cold", "nochange", "turn+undo"} {
			if x, ok := tr.Steps[k]; ok {
				steps = append(steps, fmt.Sprintf("%s %.0f s", k, x))
			}
		}
		v.Trees = append(v.Trees, []string{tr.Name, fmt.Sprint(tr.Files), fmt.Sprint(tr.Dirs), fmt.Sprint(tr.Links), fmtBytes(float64(tr.Bytes)),
			fmt.Sprint(tr.TurnbackFiles), fmt.Sprint(tr.GitFiles), prep, strings.Join(steps, ", ")})
	}
}

// correctness counts, per tree and engine, the undos that left the tree
// identical to its before-state, and lists every failed sample.
func (v *view) correctness(res *Results) {
	type key struct{ tree, engine string }
	okN, allN := map[key]int{}, map[key]int{}
	for _, s := range res.Samples {
		if s.Scenario != "undo" && s.Scenario != "b2b-undo" {
			if !s.OK && s.Error != "" {
				v.Failures = append(v.Failures, fmt.Sprintf("%s %s %s rep %d: %s", s.Tree, s.Scenario, s.Engine, s.Rep, s.Error))
			}
			continue
		}
		k := key{s.Tree, s.Engine}
		allN[k]++
		if s.OK && s.Verify == "ok" {
			okN[k]++
			continue
		}
		msg := s.Error
		if s.Verify != "" && s.Verify != "ok" {
			msg = strings.TrimSpace(msg + " tree differs: " + s.Verify)
		}
		v.Failures = append(v.Failures, fmt.Sprintf("%s %s %s rep %d: %s", s.Tree, s.Scenario, s.Engine, s.Rep, msg))
	}
	var ks []key
	for k := range allN {
		ks = append(ks, k)
	}
	sort.Slice(ks, func(i, j int) bool { return ks[i].tree+ks[i].engine < ks[j].tree+ks[j].engine })
	for _, k := range ks {
		v.Undos = append(v.Undos, fmt.Sprintf("%s, %s: %d/%d undos left the tree identical to its before-state", k.tree, k.engine, okN[k], allN[k]))
	}
}

// noise is a row per scenario, tree and engine: median, min, max, spread
// and foreign CPU share, flagged ⚠ when the spread is over 30% or the
// foreign CPU over 10%.
func (v *view) noise(res *Results, cols []string) {
	for _, c := range res.Summary {
		if c.Scenario == "size" {
			continue
		}
		for _, e := range cols {
			md, ok := c.Median[e]
			if !ok {
				continue
			}
			spread := (c.Max[e] - c.Min[e]) / md
			flag := ""
			if spread > 0.3 || c.Foreign[e] > 0.1 {
				flag = " ⚠"
				v.Noisy++
			}
			v.Noise = append(v.Noise, []string{scenarioLabels[c.Scenario], c.Tree, engineLabels[e], fmtDur(md), fmtDur(c.Min[e]), fmtDur(c.Max[e]),
				fmt.Sprintf("%.0f%%%s", spread*100, flag), fmt.Sprintf("%.0f%%", c.Foreign[e]*100)})
		}
	}
}
