//go:build linux

package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Sample is one measurement.
type Sample struct {
	Tree          string         `json:"tree"`
	TreeFiles     int            `json:"tree_files"`
	Scenario      string         `json:"scenario"`
	Engine        string         `json:"engine"`
	Rep           int            `json:"rep"` // negative: warm-up
	Warmup        bool           `json:"warmup"`
	Seconds       float64        `json:"seconds,omitempty"`
	Bytes         int64          `json:"bytes,omitempty"` // size scenario
	MaxRSSKB      int64          `json:"max_rss_kb,omitempty"`
	CPUSeconds    float64        `json:"cpu_seconds,omitempty"`
	ForeignCPU    float64        `json:"foreign_cpu_share"`
	Procs         int            `json:"processes,omitempty"`
	OK            bool           `json:"ok"`
	Error         string         `json:"error,omitempty"`
	Verify        string         `json:"verify,omitempty"`
	VerifySeconds float64        `json:"verify_seconds,omitempty"`
	Info          map[string]any `json:"info,omitempty"`
}

// TreeResult describes a tree and how long each step took.
type TreeResult struct {
	Name          string  `json:"name"`
	Kind          string  `json:"kind"`
	Dir           string  `json:"dir"`
	Files         int     `json:"files"`
	Dirs          int     `json:"dirs"`
	Links         int     `json:"symlinks"`
	Bytes         int64   `json:"bytes"`
	TurnbackFiles int     `json:"turnback_files"` // files turnback captures
	GitFiles      int     `json:"git_files"`      // paths in the shadow git index
	PrepSecs      float64 `json:"prep_seconds"`   // generation or copy in this run
	ReadySecs     float64 `json:"ready_seconds"`  // until verified and ready
	Cached        bool    `json:"cached"`
	// CLIPeakRSSKB is the largest max RSS (wait4) of any turnback CLI
	// process (the clients of turnback-cli, -cli-nowatch and -daemon;
	// not their watch daemons) on this tree.
	CLIPeakRSSKB int64 `json:"cli_peak_rss_kb"`
	// Daemons: per engine running watch daemons (turnback-cli's started
	// by itself, turnback-daemon's by watch --detach), how captures
	// through them read the tree and their peak RSS (VmHWM, read before
	// stopping them).
	Daemons map[string]*daemonCounts `json:"daemons,omitempty"`
	// DaemonPeakRSSKB and Daemon are the turnback-daemon engine's, as in
	// results from before Daemons.
	DaemonPeakRSSKB int64         `json:"daemon_peak_rss_kb,omitempty"`
	Daemon          *daemonCounts `json:"daemon,omitempty"`
	// FirstCapture is each engine's untimed first capture when the cold
	// scenario did not run (for the daemon: its start-up).
	FirstCapture map[string]*Sample `json:"first_capture,omitempty"`
	Steps        map[string]float64 `json:"step_seconds"`
	Turn         map[string]any     `json:"turn,omitempty"`
	Info         map[string]any     `json:"info,omitempty"`
	Error        string             `json:"error,omitempty"`
}

// Machine describes where the run happened.
type Machine struct {
	NProc     int     `json:"nproc"`
	CPU       string  `json:"cpu"`
	MemTotal  string  `json:"mem_total"`
	Kernel    string  `json:"kernel"`
	GoVersion string  `json:"go_version"`
	Git       string  `json:"git_version"`
	Restic    string  `json:"restic_version,omitempty"`
	Date      string  `json:"date"`
	Revision  string  `json:"turnback_revision"`
	LoadStart string  `json:"loadavg_start"`
	LoadEnd   string  `json:"loadavg_end"`
	BuildSecs float64 `json:"cli_build_seconds"`
}

// Results is the whole run.
type Results struct {
	// CLIAutoWatch marks results in which turnback-cli is the CLI with
	// its automatic watch daemon; in earlier results it was the CLI
	// without any daemon (turnback-cli-nowatch now).
	CLIAutoWatch bool          `json:"cli_auto_watch"`
	Machine      Machine       `json:"machine"`
	Config       *Config       `json:"config"`
	Started      time.Time     `json:"started"`
	Finished     time.Time     `json:"finished"`
	Engines      []string      `json:"engines"`
	Skipped      []string      `json:"skipped,omitempty"`
	Trees        []*TreeResult `json:"trees"`
	Samples      []*Sample     `json:"samples"`
	Summary      []*Cell       `json:"summary"`
}

func firstLine(b []byte) string {
	s, _, _ := strings.Cut(strings.TrimSpace(string(b)), "\n")
	return s
}

func machineInfo() Machine {
	m := Machine{NProc: runtime.NumCPU(), GoVersion: runtime.Version(), Date: time.Now().UTC().Format(time.RFC3339)}
	if data, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, l := range strings.Split(string(data), "\n") {
			if k, v, ok := strings.Cut(l, ":"); ok && strings.TrimSpace(k) == "model name" {
				m.CPU = strings.TrimSpace(v)
				break
			}
		}
	}
	if data, err := os.ReadFile("/proc/meminfo"); err == nil {
		for _, l := range strings.Split(string(data), "\n") {
			if strings.HasPrefix(l, "MemTotal:") {
				f := strings.Fields(l)
				if kb, err := strconv.ParseInt(f[1], 10, 64); err == nil {
					m.MemTotal = fmt.Sprintf("%.1f GiB", float64(kb)/(1<<20))
				}
			}
		}
	}
	if data, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		m.Kernel = "Linux " + strings.TrimSpace(string(data))
	}
	if out, err := exec.Command("git", "--version").Output(); err == nil {
		m.Git = firstLine(out)
	}
	root := filepath.Dir(benchDir())
	if out, err := exec.Command("git", "-C", root, "rev-parse", "--short", "HEAD").Output(); err == nil {
		m.Revision = firstLine(out)
		if st, err := exec.Command("git", "-C", root, "status", "--porcelain", "--untracked-files=no").Output(); err == nil && len(strings.TrimSpace(string(st))) > 0 {
			m.Revision += fmt.Sprintf(" + uncommitted changes in %d tracked files", strings.Count(strings.TrimSpace(string(st)), "\n")+1)
		}
	}
	return m
}

func loadAvg() string {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return ""
	}
	f := strings.Fields(string(data))
	if len(f) < 3 {
		return ""
	}
	return strings.Join(f[:3], " ")
}

// Cell is the summary of one scenario on one tree.
type Cell struct {
	Scenario  string             `json:"scenario"`
	Tree      string             `json:"tree"`
	Files     int                `json:"tree_files"`
	Median    map[string]float64 `json:"median"`      // seconds (bytes for size)
	Min       map[string]float64 `json:"min"`         //
	Max       map[string]float64 `json:"max"`         //
	N         map[string]int     `json:"n"`           // measured samples that succeeded
	Failed    map[string]int     `json:"failed"`      // measured samples that failed (error or tree differs)
	Foreign   map[string]float64 `json:"foreign"`     // median foreign CPU share
	CPU       map[string]float64 `json:"cpu_median"`  // median CPU seconds (user+sys)
	CPURatio  map[string]float64 `json:"cpu_ratio"`   // median of pairwise CPU-time ratios to shadow git
	Ratio     map[string]float64 `json:"ratio"`       // engine -> median of pairwise engine/shadow-git
	RatioN    map[string]int     `json:"ratio_pairs"` // pairs behind each ratio
	Target    float64            `json:"target,omitempty"`
	Pass      *bool              `json:"pass,omitempty"`            // turnback-cli ratio within target
	PeakRSSKB int64              `json:"cli_peak_rss_kb,omitempty"` // turnback CLI processes (clients), any CLI engine
}

func median(xs []float64) float64 {
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

// target is the bound on the turnback-CLI / shadow-git ratio.
func target(scenario string, files int) float64 {
	switch scenario {
	case "cold":
		if files >= 500_000 {
			return 0.3
		}
		return 0.25
	case "nochange", "turn", "size":
		return 0.7
	case "undo":
		return 0.5
	}
	return 0
}

const rssTargetKB = 400 * 1000 // 400 MB

const peer = "shadow-git"

func summarize(res *Results) {
	res.Summary = nil
	for _, sc := range allScenarios {
		for _, tr := range res.Trees {
			c := &Cell{Scenario: sc, Tree: tr.Name, Files: tr.Files, Median: map[string]float64{}, Min: map[string]float64{}, Max: map[string]float64{},
				N: map[string]int{}, Failed: map[string]int{}, Foreign: map[string]float64{}, Ratio: map[string]float64{}, RatioN: map[string]int{},
				CPU: map[string]float64{}, CPURatio: map[string]float64{}}
			byEngine := map[string]map[int]float64{}
			cpuBy := map[string]map[int]float64{}
			any := false
			for _, s := range res.Samples {
				if s.Tree != tr.Name || s.Scenario != sc || s.Warmup {
					continue
				}
				any = true
				if !s.OK {
					c.Failed[s.Engine]++
					continue
				}
				v := s.Seconds
				if sc == "size" {
					v = float64(s.Bytes)
				}
				if byEngine[s.Engine] == nil {
					byEngine[s.Engine] = map[int]float64{}
				}
				byEngine[s.Engine][s.Rep] = v
				if cpuBy[s.Engine] == nil {
					cpuBy[s.Engine] = map[int]float64{}
				}
				if s.CPUSeconds > 0 { // 0: not measured
					cpuBy[s.Engine][s.Rep] = s.CPUSeconds
				}
				if cliEngine(s.Engine) && s.MaxRSSKB > c.PeakRSSKB {
					c.PeakRSSKB = s.MaxRSSKB
				}
			}
			if !any {
				continue
			}
			for e, reps := range byEngine {
				var xs, fs []float64
				for _, v := range reps {
					xs = append(xs, v)
				}
				for _, s := range res.Samples {
					if s.Tree == tr.Name && s.Scenario == sc && s.Engine == e && !s.Warmup && s.OK {
						fs = append(fs, s.ForeignCPU)
					}
				}
				sort.Float64s(xs)
				c.Median[e], c.Min[e], c.Max[e], c.N[e] = median(xs), xs[0], xs[len(xs)-1], len(xs)
				c.Foreign[e] = median(fs)
				var cs []float64
				for _, v := range cpuBy[e] {
					cs = append(cs, v)
				}
				if len(cs) > 0 {
					c.CPU[e] = median(cs)
				}
			}
			if g := byEngine[peer]; g != nil {
				for e, reps := range byEngine {
					if e == peer {
						continue
					}
					var rs []float64
					for rep, v := range reps {
						if gv, ok := g[rep]; ok && gv > 0 {
							rs = append(rs, v/gv)
						}
					}
					if len(rs) > 0 {
						c.Ratio[e], c.RatioN[e] = median(rs), len(rs)
					}
					var cr []float64
					for rep, v := range cpuBy[e] {
						if gv, ok := cpuBy[peer][rep]; ok && gv > 0 {
							cr = append(cr, v/gv)
						}
					}
					if len(cr) > 0 {
						c.CPURatio[e] = median(cr)
					}
				}
			}
			if t := target(sc, tr.Files); t > 0 {
				c.Target = t
				if r, ok := c.Ratio["turnback-cli"]; ok {
					p := r <= t && c.Failed["turnback-cli"] == 0
					c.Pass = &p
				}
			}
			res.Summary = append(res.Summary, c)
		}
	}
}

func fmtDur(s float64) string {
	switch {
	case math.IsNaN(s):
		return "—"
	case s < 1:
		return fmt.Sprintf("%.0f ms", s*1000)
	case s < 10:
		return fmt.Sprintf("%.2f s", s)
	default:
		return fmt.Sprintf("%.1f s", s)
	}
}

func fmtBytes(b float64) string {
	switch {
	case math.IsNaN(b):
		return "—"
	case b >= 1e9:
		return fmt.Sprintf("%.2f GB", b/1e9)
	default:
		return fmt.Sprintf("%.1f MB", b/1e6)
	}
}

func fmtCount(n int) string {
	switch {
	case n >= 1_000_000:
		return fmt.Sprintf("%.2fM", float64(n)/1e6)
	case n >= 1000:
		return fmt.Sprintf("%.1fk", float64(n)/1e3)
	}
	return strconv.Itoa(n)
}

// engineOrder is the order of the engines in tables and the chart.
var engineOrder = []string{"turnback-cli", "turnback-cli-nowatch", "turnback-daemon", "turnback-api", "shadow-git", "restic"}

var engineLabels = map[string]string{
	"turnback-cli":         "turnback CLI",
	"turnback-cli-nowatch": "turnback CLI, no watch",
	"turnback-daemon":      "turnback daemon",
	"turnback-api":         "turnback API",
	"shadow-git":           "shadow git",
	"restic":               "restic",
}

var scenarioLabels = map[string]string{
	"cold":     "cold capture",
	"nochange": "no-change capture",
	"turn":     "turn capture",
	"undo":     "undo of the turn",
	"size":     "store size",
}

// verdict is engine's ratio to shadow git with PASS or MISS against the
// issue's target (a cell with a failed sample of engine is a MISS).
func verdict(c *Cell, engine string) string {
	r, ok := c.Ratio[engine]
	if !ok {
		return "—"
	}
	s := fmt.Sprintf("%.2f", r)
	if c.Target > 0 {
		if r <= c.Target && c.Failed[engine] == 0 {
			s += fmt.Sprintf(" PASS (≤%.2g)", c.Target)
		} else {
			s += fmt.Sprintf(" MISS (≤%.2g)", c.Target)
		}
	}
	return s
}

func markdown(res *Results) string {
	var b strings.Builder
	cfg := res.Config
	fmt.Fprintf(&b, "# turnback benchmark results\n\n")
	m := res.Machine
	fmt.Fprintf(&b, "- date: %s (run took %s)\n", m.Date, res.Finished.Sub(res.Started).Round(time.Second))
	fmt.Fprintf(&b, "- machine: %d CPUs (%s), %s RAM, %s\n", m.NProc, m.CPU, m.MemTotal, m.Kernel)
	fmt.Fprintf(&b, "- %s, %s", m.GoVersion, m.Git)
	if m.Restic != "" {
		fmt.Fprintf(&b, ", %s", m.Restic)
	}
	fmt.Fprintf(&b, "\n- turnback revision: %s\n", m.Revision)
	fmt.Fprintf(&b, "- load average at start: %s, at end: %s\n", m.LoadStart, m.LoadEnd)
	fmt.Fprintf(&b, "- repetitions: %d measured after %d warm-up; engines alternate run by run (%s); settle %s before timed turn steps; sync(2) before each timed step: %v; api engine keeps its Repo open: %v\n",
		cfg.Reps, cfg.Warmup, strings.Join(res.Engines, ", "), cfg.Settle, cfg.Sync, cfg.APIKeepOpen)
	for _, s := range res.Skipped {
		fmt.Fprintf(&b, "- **%s**\n", s)
	}
	hasEngine := map[string]bool{}
	for _, e := range res.Engines {
		hasEngine[e] = true
	}
	for _, s := range res.Samples { // merged reports
		hasEngine[s.Engine] = true
	}
	daemon := hasEngine["turnback-daemon"]
	nowatch := hasEngine["turnback-cli-nowatch"]
	fmt.Fprintf(&b, "\nTimes are medians; ratios are the median of the pairwise ratios (turnback run i / shadow git run i). Targets (issue #4) apply to the turnback CLI / shadow git ratio")
	if daemon {
		b.WriteString(" and, in its own column, to the turnback daemon / shadow git ratio")
	}
	b.WriteString(".")
	if hasEngine["turnback-cli"] && res.CLIAutoWatch {
		b.WriteString(" **turnback CLI** is the CLI as users get it: one process per command, process start included, with automatic watching at its default (a `snap`, `end` or `status` that captured 2000 files or more without a daemon starts `turnback watch` in the background as it exits, and later commands are forwarded to that daemon). Its cold capture is the first plain `snap` alone: the daemon it starts is waited for afterwards, untimed, and its background start-up (from the snap's exit until `watch --status` says ready, and the daemon's CPU meanwhile) is reported in the Watch daemon section, **not included in the cold capture's time**. Its other steps are timed from the CLI process and go through that daemon when one serves (the harness never starts one itself: a step that finds none runs without it and is counted); their CPU time is the client's plus the daemon's during the step (/proc/<pid>/stat).")
	} else if hasEngine["turnback-cli"] {
		b.WriteString(" **turnback CLI** in these results predates the automatic watch daemon: every command read the tree itself (as turnback CLI, no watch measures now).")
	}
	if nowatch {
		b.WriteString(" **turnback CLI, no watch** is the same CLI with `TURNBACK_AUTO_WATCH=0`: no daemon, every command reads the tree itself (what the turnback CLI column measured before daemons started by themselves); its ratio is shown for comparison, not a target.")
	}
	b.WriteString(" Peak RSS (CLI) is the largest max RSS (wait4) of the turnback CLI processes (the clients; not the watch daemons) of that cell. Issue #4's peak RSS bound (< 400 MB on the 1M tree) is on any turnback process: the CLI clients' row and each watch daemon's row get a verdict of their own.")
	if daemon {
		b.WriteString(" The turnback daemon engine is the same CLI (one process per command, process start included) with a `turnback watch` daemon started explicitly: its cold capture is `turnback watch --detach` (daemon start-up, including the daemon's initial full capture of the tree) followed by the first `snap`, timed together; its other steps go through the running daemon (started again untimed if it died); its CPU time is the client's plus the daemon's.")
	}
	if daemon || (hasEngine["turnback-cli"] && res.CLIAutoWatch) {
		b.WriteString(" The daemons' own memory is in the \"peak RSS of the watch daemon\" rows, not in the CLI column.")
	}
	b.WriteString("\n\n")

	cols := []string{}
	for _, e := range engineOrder {
		if hasEngine[e] {
			cols = append(cols, e)
		}
	}
	b.WriteString("| scenario | tree | files |")
	for _, e := range cols {
		fmt.Fprintf(&b, " %s |", engineLabels[e])
	}
	b.WriteString(" CLI / git |")
	if nowatch {
		b.WriteString(" CLI no watch / git (not a target) |")
	}
	if daemon {
		b.WriteString(" daemon / git |")
	}
	b.WriteString(" API / git | peak RSS (CLI) |\n|---|---|--:|")
	for range cols {
		b.WriteString("--:|")
	}
	if nowatch {
		b.WriteString("--:|")
	}
	if daemon {
		b.WriteString("---|")
	}
	b.WriteString("---|--:|--:|\n")
	for _, c := range res.Summary {
		fmt.Fprintf(&b, "| %s | %s | %s |", scenarioLabels[c.Scenario], c.Tree, fmtCount(c.Files))
		for _, e := range cols {
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
			fmt.Fprintf(&b, " %s |", cell)
		}
		api := "—"
		if r, ok := c.Ratio["turnback-api"]; ok {
			api = fmt.Sprintf("%.2f", r)
		}
		rss := "—"
		if c.PeakRSSKB > 0 {
			rss = fmt.Sprintf("%.0f MB", float64(c.PeakRSSKB)/1000)
		}
		fmt.Fprintf(&b, " %s |", verdict(c, "turnback-cli"))
		if nowatch {
			r := "—"
			if v, ok := c.Ratio["turnback-cli-nowatch"]; ok {
				r = fmt.Sprintf("%.2f", v)
				if f := c.Failed["turnback-cli-nowatch"]; f > 0 {
					r += fmt.Sprintf(" (%d failed)", f)
				}
			}
			fmt.Fprintf(&b, " %s |", r)
		}
		if daemon {
			fmt.Fprintf(&b, " %s |", verdict(c, "turnback-daemon"))
		}
		fmt.Fprintf(&b, " %s | %s |\n", api, rss)
	}
	// Empty cells from the engine columns to the last ratio column.
	pad := len(cols) + 1 // CLI / git
	if nowatch {
		pad++
	}
	if daemon {
		pad++
	}
	rssRow := func(label string, tr *TreeResult, kb int64, suffix string) {
		v := ""
		if tr.Files >= 500_000 {
			if kb < rssTargetKB {
				v = " PASS (<400 MB)"
			} else {
				v = " MISS (<400 MB)"
			}
		}
		fmt.Fprintf(&b, "| %s | %s | %s |%s %.0f MB%s%s |\n", label, tr.Name, fmtCount(tr.Files), strings.Repeat(" |", pad+1), float64(kb)/1000, suffix, v)
	}
	for _, tr := range res.Trees {
		if tr.CLIPeakRSSKB > 0 {
			rssRow("peak RSS, any turnback CLI command (client processes)", tr, tr.CLIPeakRSSKB, "")
		}
	}
	for _, e := range []string{"turnback-cli", "turnback-daemon"} {
		for _, tr := range res.Trees {
			dc := treeDaemon(tr, e)
			if dc == nil || dc.PeakRSSKB == 0 {
				continue
			}
			label := "peak RSS of the watch daemon started automatically (turnback CLI)"
			if e == "turnback-daemon" {
				label = "peak RSS of the watch daemon started by watch --detach (turnback daemon)"
			}
			rssRow(label, tr, dc.PeakRSSKB, " (daemon)")
		}
	}
	if hasDaemonSection(res) {
		b.WriteString(daemonSection(res))
	}

	b.WriteString("\n## CPU time\n\nMedian CPU time (user+sys) of each step: the engine's processes (wait4 rusage), or the harness process for the in-process API. Less sensitive to other load on the machine than wall time, but blind to time spent waiting (fsync, disk, lock).\n\n")
	b.WriteString("| scenario | tree |")
	for _, e := range cols {
		fmt.Fprintf(&b, " %s |", engineLabels[e])
	}
	ratioCols := []string{"turnback-cli"}
	b.WriteString(" CLI / git (CPU) |")
	if nowatch {
		ratioCols = append(ratioCols, "turnback-cli-nowatch")
		b.WriteString(" CLI no watch / git (CPU) |")
	}
	if daemon {
		ratioCols = append(ratioCols, "turnback-daemon")
		b.WriteString(" daemon / git (CPU) |")
	}
	ratioCols = append(ratioCols, "turnback-api")
	b.WriteString(" API / git (CPU) |\n|---|---|")
	for range cols {
		b.WriteString("--:|")
	}
	for range ratioCols {
		b.WriteString("--:|")
	}
	b.WriteString("\n")
	for _, c := range res.Summary {
		if c.Scenario == "size" {
			continue
		}
		fmt.Fprintf(&b, "| %s | %s |", scenarioLabels[c.Scenario], c.Tree)
		for _, e := range cols {
			if v, ok := c.CPU[e]; ok {
				fmt.Fprintf(&b, " %s |", fmtDur(v))
			} else {
				b.WriteString(" — |")
			}
		}
		for _, e := range ratioCols {
			if v, ok := c.CPURatio[e]; ok {
				fmt.Fprintf(&b, " %.2f |", v)
			} else {
				b.WriteString(" — |")
			}
		}
		b.WriteString("\n")
	}

	b.WriteString("\n## Trees\n\n| tree | files | dirs | symlinks | size | captured by turnback | in shadow git index | prepared | step times |\n|---|--:|--:|--:|--:|--:|--:|---|---|\n")
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
			if v, ok := tr.Steps[k]; ok {
				steps = append(steps, fmt.Sprintf("%s %.0f s", k, v))
			}
		}
		fmt.Fprintf(&b, "| %s | %d | %d | %d | %s | %d | %d | %s | %s |\n", tr.Name, tr.Files, tr.Dirs, tr.Links, fmtBytes(float64(tr.Bytes)), tr.TurnbackFiles, tr.GitFiles, prep, strings.Join(steps, ", "))
	}

	b.WriteString("\n## Correctness\n\nAfter every undo the tree is compared with its reference state byte for byte (paths, kinds, permission bits, sizes, contents, link targets).\n\n")
	type key struct{ tree, engine string }
	okN, allN := map[key]int{}, map[key]int{}
	var fails []string
	for _, s := range res.Samples {
		if s.Scenario != "undo" {
			if !s.OK && s.Error != "" {
				fails = append(fails, fmt.Sprintf("%s %s %s rep %d: %s", s.Tree, s.Scenario, s.Engine, s.Rep, s.Error))
			}
			continue
		}
		k := key{s.Tree, s.Engine}
		allN[k]++
		if s.OK && s.Verify == "ok" {
			okN[k]++
		} else {
			msg := s.Error
			if s.Verify != "" && s.Verify != "ok" {
				msg = strings.TrimSpace(msg + " tree differs: " + s.Verify)
			}
			fails = append(fails, fmt.Sprintf("%s undo %s rep %d: %s", s.Tree, s.Engine, s.Rep, msg))
		}
	}
	var ks []key
	for k := range allN {
		ks = append(ks, k)
	}
	sort.Slice(ks, func(i, j int) bool { return ks[i].tree+ks[i].engine < ks[j].tree+ks[j].engine })
	for _, k := range ks {
		fmt.Fprintf(&b, "- %s, %s: %d/%d undos left the tree identical to its before-state\n", k.tree, k.engine, okN[k], allN[k])
	}
	if len(fails) > 0 {
		b.WriteString("\nFailures:\n\n")
		for _, f := range fails {
			fmt.Fprintf(&b, "- %s\n", f)
		}
	}

	b.WriteString("\n## Noise\n\nforeign CPU = share of the machine's CPU time used by other processes while a step ran (from /proc/stat, minus the step's own CPU time); spread = (max − min) / median over the measured repetitions.\n\n")
	b.WriteString("| scenario | tree | engine | median | min | max | spread | foreign CPU |\n|---|---|---|--:|--:|--:|--:|--:|\n")
	noisy := 0
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
				noisy++
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %.0f%%%s | %.0f%% |\n", scenarioLabels[c.Scenario], c.Tree, engineLabels[e], fmtDur(md), fmtDur(c.Min[e]), fmtDur(c.Max[e]), spread*100, flag, c.Foreign[e]*100)
		}
	}
	fmt.Fprintf(&b, "\n%d cells flagged ⚠ (spread over 30%% or foreign CPU over 10%%).\n", noisy)
	return b.String()
}

func writeResults(cfg *Config, res *Results) error {
	return saveResults(cfg, res, true)
}

// saveResults writes results.md, results.json and chart.svg; with final
// false (a checkpoint during the run) it prints nothing.
func saveResults(cfg *Config, res *Results, final bool) error {
	summarize(res)
	md := markdown(res)
	if !final {
		md = "**Partial results: the run is still going or was interrupted.**\n\n" + md
	} else {
		fmt.Print(md)
	}
	if err := os.WriteFile(filepath.Join(cfg.OutDir, "results.md"), []byte(md), 0o644); err != nil {
		return err
	}
	data, err := json.MarshalIndent(res, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(cfg.OutDir, "results.json"), data, 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(cfg.OutDir, "chart.svg"), []byte(chart(res)), 0o644); err != nil {
		return err
	}
	if !final {
		return nil
	}
	logf("wrote %s, results.json and chart.svg", filepath.Join(cfg.OutDir, "results.md"))
	if cfg.CPUProfile != "" {
		logf("CPU profiles of the api engine in %s; e.g. go tool pprof -top %s/<tree>-undo-r*.pprof", cfg.CPUProfile, cfg.CPUProfile)
	}
	return nil
}

// mergeReports re-renders the report of one or more earlier runs.
func mergeReports(cfg *Config, files []string) error {
	var out *Results
	for _, f := range files {
		data, err := os.ReadFile(strings.TrimSpace(f))
		if err != nil {
			return err
		}
		var r Results
		if err := json.Unmarshal(data, &r); err != nil {
			return fmt.Errorf("%s: %w", f, err)
		}
		if !r.CLIAutoWatch {
			out0 := fmt.Sprintf("note: %s predates the automatic watch daemon: its turnback CLI is the CLI without any daemon (what turnback CLI, no watch measures now)", f)
			r.Skipped = append(r.Skipped, out0)
		}
		if out == nil {
			out = &r
			continue
		}
		out.Trees = append(out.Trees, r.Trees...)
		out.Samples = append(out.Samples, r.Samples...)
		out.Skipped = append(out.Skipped, r.Skipped...)
		if r.Finished.After(out.Finished) {
			out.Finished = r.Finished
		}
		out.Machine.LoadEnd = r.Machine.LoadEnd
		if r.Config != nil && out.Config != nil && r.Config.Reps != out.Config.Reps {
			out.Skipped = append(out.Skipped, fmt.Sprintf("note: merged runs differ in repetitions (%s: %d measured after %d warm-up)", f, r.Config.Reps, r.Config.Warmup))
		}
		if r.Machine.Revision != out.Machine.Revision {
			out.Skipped = append(out.Skipped, fmt.Sprintf("note: %s measured turnback revision %s", f, r.Machine.Revision))
		}
	}
	if out == nil {
		return fmt.Errorf("no results files")
	}
	seen := map[string]bool{}
	var skipped []string
	for _, s := range out.Skipped {
		if !seen[s] {
			seen[s] = true
			skipped = append(skipped, s)
		}
	}
	out.Skipped = skipped
	if out.Config == nil {
		out.Config = cfg
	}
	out.Config.OutDir = cfg.OutDir
	if err := os.MkdirAll(cfg.OutDir, 0o755); err != nil {
		return err
	}
	return writeResults(out.Config, out)
}
