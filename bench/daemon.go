//go:build linux

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// ---- turnback CLI with a watch daemon running ----

// tbDaemon is the turnback CLI (one process per command, process start
// included) on a folder watched by `turnback watch`: every command is
// forwarded to the daemon over its unix socket. The cold capture is
// `watch --detach` (the daemon's start-up, including its initial full
// capture) followed by the first `snap`, timed together; every other step
// goes through a running daemon, started untimed first if it is not
// running. Fresh and Close stop the daemon (reading its peak RSS, VmHWM,
// first).
type tbDaemon struct {
	tbCLI
	pid      int   // the running daemon, 0: none known
	cpuTicks int64 // the daemon's CPU time (clock ticks) when last read
	// peakKB is the largest VmHWM of any daemon this engine ran on the
	// current tree.
	peakKB   int64
	restarts int // daemons started outside a cold capture
	// How the captures through the daemon read the tree (all of them,
	// untimed before-state captures and warm-ups included).
	counts daemonCounts
}

// daemonCounts says how captures through the daemon read the tree.
type daemonCounts struct {
	Captures     int            `json:"captures"`
	Incremental  int            `json:"incremental"`
	FullWalks    map[string]int `json:"full_walks,omitempty"` // reason -> count
	NotForwarded int            `json:"not_forwarded"`        // commands the daemon did not run
	Restarts     int            `json:"restarts"`             // daemons started untimed, outside a cold capture
}

func newTBDaemon(bin string) *tbDaemon { return &tbDaemon{tbCLI: tbCLI{bin: bin}} }

func (e *tbDaemon) Name() string { return "turnback-daemon" }

func (e *tbDaemon) Setup(t *Tree, work string) error {
	e.pid, e.peakKB, e.restarts, e.counts = 0, 0, 0, daemonCounts{FullWalks: map[string]int{}}
	return e.tbCLI.Setup(t, work)
}

func (e *tbDaemon) Fresh() error {
	if err := e.stop(); err != nil {
		return err
	}
	return os.RemoveAll(e.store)
}

func (e *tbDaemon) Close() error { return e.stop() }

// daemons lists every daemon pid the harness started, so that a run
// that ends early leaves none behind.
var daemons = struct {
	sync.Mutex
	pids map[int]bool
}{pids: map[int]bool{}}

// daemonAlive says whether pid is a live (not zombie) turnback watch
// daemon.
func daemonAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil || !strings.Contains(string(cmdline), "watch") {
		return false
	}
	st, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	_, rest, ok := strings.Cut(string(st), ") ")
	return ok && !strings.HasPrefix(rest, "Z")
}

// killDaemon ends a daemon that did not stop when asked: SIGTERM, then
// SIGKILL after 30 s.
func killDaemon(pid int) {
	if !daemonAlive(pid) {
		return
	}
	logf("watch daemon pid %d did not stop when asked: sending SIGTERM", pid)
	syscall.Kill(pid, syscall.SIGTERM)
	for i := 0; i < 300 && daemonAlive(pid); i++ {
		time.Sleep(100 * time.Millisecond)
	}
	if daemonAlive(pid) {
		logf("watch daemon pid %d still running: sending SIGKILL", pid)
		syscall.Kill(pid, syscall.SIGKILL)
	}
}

// stopAllDaemons kills whatever daemon the harness started that is still
// running (normally none: engines stop theirs).
func stopAllDaemons() {
	daemons.Lock()
	defer daemons.Unlock()
	for pid := range daemons.pids {
		killDaemon(pid)
		delete(daemons.pids, pid)
	}
}

// procPidStatusKB reads a field (VmHWM, VmRSS) of /proc/<pid>/status.
func procPidStatusKB(pid int, field string) int64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(l, field+":") {
			if f := strings.Fields(l); len(f) >= 2 {
				n, _ := strconv.ParseInt(f[1], 10, 64)
				return n
			}
		}
	}
	return 0
}

// procPidCPUTicks is the user+sys CPU time of pid in clock ticks.
func procPidCPUTicks(pid int) int64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	_, rest, ok := strings.Cut(string(data), ") ")
	if !ok {
		return 0
	}
	f := strings.Fields(rest) // f[0] is field 3 (state)
	if len(f) < 13 {
		return 0
	}
	u, _ := strconv.ParseInt(f[11], 10, 64) // field 14: utime
	s, _ := strconv.ParseInt(f[12], 10, 64) // field 15: stime
	return u + s
}

// notePeak reads the daemon's VmHWM into the engine's peak and returns it.
func (e *tbDaemon) notePeak() int64 {
	if e.pid == 0 {
		return 0
	}
	kb := procPidStatusKB(e.pid, "VmHWM")
	e.peakKB = max(e.peakKB, kb)
	return kb
}

// stop reads the daemon's peak RSS and stops it (`watch --stop`, which
// waits until the store is released); a daemon that does not stop is
// killed.
func (e *tbDaemon) stop() error {
	e.notePeak()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	var p procRun
	err := p.run(e.cmd(ctx, "watch", "--stop"))
	pid := e.pid
	e.pid = 0
	if pid != 0 {
		for i := 0; i < 100 && daemonAlive(pid); i++ {
			time.Sleep(50 * time.Millisecond)
		}
		killDaemon(pid)
		daemons.Lock()
		delete(daemons.pids, pid)
		daemons.Unlock()
	}
	if err != nil {
		return fmt.Errorf("stop the watch daemon: %w", err)
	}
	return nil
}

// daemonDoc is what `watch --detach --json` prints.
type daemonDoc struct {
	PID      int    `json:"pid"`
	Requests int64  `json:"requests"`
	Error    string `json:"error"`
}

// detach runs `watch --detach --json` as part of p: it starts the daemon,
// or reports the running one.
func (e *tbDaemon) detach(ctx context.Context, p *procRun) (daemonDoc, error) {
	var d daemonDoc
	// A safety net: a daemon the harness fails to stop ends by itself.
	if err := p.run(e.cmd(ctx, "watch", "--detach", "--idle-timeout", "1h")); err != nil {
		return d, err
	}
	if err := json.Unmarshal(p.stdout.Bytes(), &d); err != nil || d.PID == 0 {
		return d, fmt.Errorf("turnback watch --detach: no pid in %q", strings.TrimSpace(p.stdout.String()))
	}
	if d.PID != e.pid {
		if e.pid != 0 {
			logf("watch daemon pid %d replaced by pid %d", e.pid, d.PID)
		}
		e.pid, e.cpuTicks = d.PID, 0
		daemons.Lock()
		daemons.pids[d.PID] = true
		daemons.Unlock()
	}
	return d, nil
}

// ensure makes sure a daemon serves the folder (untimed) and returns its
// request count.
func (e *tbDaemon) ensure(ctx context.Context) (int64, bool, error) {
	before := e.pid
	var p procRun
	d, err := e.detach(ctx, &p)
	if err != nil {
		return 0, false, err
	}
	started := before == 0 || d.PID != before || !daemonAlive(before)
	if started {
		e.restarts++
		logf("started a watch daemon (pid %d) outside the timing", e.pid)
		// A daemon may serve before its initial full capture is done
		// (commands wait for it): an untimed status makes sure the
		// next timed step does not pay for it.
		var q procRun
		if err := q.run(e.cmd(ctx, "status")); err != nil {
			return 0, started, err
		}
		if d, err = e.detach(ctx, &q); err != nil {
			return 0, started, err
		}
	}
	return d.Requests, started, nil
}

// measured runs fn as one operation through the daemon: the daemon's CPU
// time during it is added to the client processes', its VmHWM noted, and
// the daemon's request count checked (the command was forwarded).
func (e *tbDaemon) measured(ctx context.Context, cold bool, fn func(p *procRun) error) (Op, *procRun, error) {
	var req0 int64
	started := false
	if !cold {
		var err error
		if req0, started, err = e.ensure(ctx); err != nil {
			return Op{}, nil, err
		}
	}
	// A cold capture starts the daemon: all its CPU time is the
	// operation's.
	var ticks0 int64
	if !cold {
		ticks0 = procPidCPUTicks(e.pid)
	}
	p := startOp()
	err := fn(p)
	// The daemon's CPU time counts as the operation's (wait4 of the
	// client does not include it: the daemon is not its waited child).
	ticks := procPidCPUTicks(e.pid)
	daemonCPU := time.Duration(ticks-ticks0) * 10 * time.Millisecond
	if ticks < ticks0 || e.pid == 0 {
		daemonCPU = 0
	}
	e.cpuTicks = ticks
	clientCPU := p.op.CPU
	p.op.CPU += daemonCPU
	op := p.finish()
	mergeInfo(&op, map[string]any{"daemon_pid": e.pid, "daemon_cpu_seconds": daemonCPU.Seconds(), "client_cpu_seconds": clientCPU.Seconds(),
		"daemon_hwm_kb": e.notePeak(), "daemon_started_untimed": started})
	if err == nil {
		// Untimed: was the command run by the daemon? (pings do not
		// count as requests; a daemon started for a cold capture has
		// served only the snap.)
		pid := e.pid
		var q procRun
		if d, derr := e.detach(ctx, &q); derr == nil {
			op.Info["forwarded"] = d.PID == pid && d.Requests > req0
			op.Info["daemon_requests"] = d.Requests
		}
	}
	return op, p, err
}

func (e *tbDaemon) Capture(ctx context.Context, phase string, rep int) (Op, error) {
	args := []string{"snap", "-m", "bench " + phase}
	if phase == phTurn {
		args = []string{"end"}
	}
	cold := phase == phCold
	var detachWall, snapWall time.Duration
	op, p, err := e.measured(ctx, cold, func(p *procRun) error {
		if cold {
			if e.pid != 0 && daemonAlive(e.pid) {
				return fmt.Errorf("a watch daemon (pid %d) is still running before a cold capture", e.pid)
			}
			e.pid = 0
			w0 := p.wall
			if _, err := e.detach(ctx, p); err != nil {
				return err
			}
			detachWall = p.wall - w0
		}
		w0 := p.wall
		err := p.run(e.cmd(ctx, args...))
		snapWall = p.wall - w0
		return err
	})
	if cold {
		mergeInfo(&op, map[string]any{"detach_seconds": detachWall.Seconds(), "first_snap_seconds": snapWall.Seconds()})
	}
	if err != nil {
		return op, err
	}
	doc, err := parseSnapDoc(p.stdout.Bytes(), args[0], phase)
	if err != nil {
		return op, err
	}
	mergeInfo(&op, tbStats(doc.Stats))
	op.Info["snapshot"] = doc.Snapshot
	if w, ok := doc.Stats["watch"].(map[string]any); ok {
		mergeInfo(&op, map[string]any{"watch_incremental": w["incremental"], "watch_full_walk": w["full_walk"],
			"watch_dirs_read": w["dirs_read"], "watch_dirs_reused": w["dirs_reused"]})
	} else {
		// No watch stats: the command was not run by a watching daemon.
		op.Info["watch_incremental"] = false
		op.Info["watch_full_walk"] = "no stats.watch: not run by the daemon"
		op.Info["forwarded"] = false
	}
	e.counts.Captures++
	if inc, _ := op.Info["watch_incremental"].(bool); inc {
		e.counts.Incremental++
	} else {
		why, _ := op.Info["watch_full_walk"].(string)
		if why == "" {
			why = "(no reason given)"
		}
		e.counts.FullWalks[why]++
	}
	if f, ok := op.Info["forwarded"].(bool); ok && !f {
		e.counts.NotForwarded++
	}
	return op, nil
}

func (e *tbDaemon) Undo(ctx context.Context, rep int) (Op, error) {
	op, p, err := e.measured(ctx, false, func(p *procRun) error {
		return p.run(e.cmd(ctx, "undo"))
	})
	if f, ok := op.Info["forwarded"].(bool); ok && !f {
		e.counts.NotForwarded++
	}
	if err != nil {
		return op, err
	}
	return op, checkUndoDoc(&op, p.stdout.Bytes())
}

// parseSnapDoc reads the --json document of snap or end.
func parseSnapDoc(out []byte, cmd, phase string) (*snapDoc, error) {
	var doc snapDoc
	if err := json.Unmarshal(out, &doc); err != nil {
		return nil, fmt.Errorf("turnback %s: bad JSON: %v", cmd, err)
	}
	if doc.Snapshot == "" {
		return nil, fmt.Errorf("turnback %s recorded no snapshot: %s", cmd, doc.Message)
	}
	if phase == phTurn && doc.Message != "" {
		return nil, fmt.Errorf("turnback end: %s", doc.Message)
	}
	return &doc, nil
}

type snapDoc struct {
	Snapshot string         `json:"snapshot"`
	Turn     int            `json:"turn"`
	Files    int64          `json:"files"`
	Message  string         `json:"message"`
	Stats    map[string]any `json:"stats"`
}

// checkUndoDoc reads the --json document of undo into op.Info.
func checkUndoDoc(op *Op, out []byte) error {
	var doc struct {
		Turns         int      `json:"turns"`
		Restored      []string `json:"restored"`
		Deleted       []string `json:"deleted"`
		Created       []string `json:"created"`
		Conflicts     []string `json:"conflicts"`
		NotRestorable []string `json:"not_restorable"`
	}
	if err := json.Unmarshal(out, &doc); err != nil {
		return fmt.Errorf("turnback undo: bad JSON: %v", err)
	}
	mergeInfo(op, map[string]any{"turns": doc.Turns, "restored": len(doc.Restored), "deleted": len(doc.Deleted), "created": len(doc.Created), "not_restorable": len(doc.NotRestorable)})
	if doc.Turns != 1 {
		return fmt.Errorf("turnback undo undid %d turns, want 1", doc.Turns)
	}
	return nil
}

// Issue #5's targets for the watch daemon.
const (
	daemonTurnRatioTarget = 0.1   // turn capture, daemon / shadow git, 100k and 1M
	daemonNoChangeTarget  = 0.020 // no-change snap, seconds, 100k
)

func infoFloat(info map[string]any, k string) (float64, bool) {
	switch v := info[k].(type) {
	case float64:
		return v, true
	case int64:
		return float64(v), true
	case int:
		return float64(v), true
	}
	return 0, false
}

// daemonSection is the report's issue #5 table and the daemon's details.
func daemonSection(res *Results) string {
	var b strings.Builder
	const de = "turnback-daemon"
	cell := func(sc, tree string) *Cell {
		for _, c := range res.Summary {
			if c.Scenario == sc && c.Tree == tree {
				return c
			}
		}
		return nil
	}
	b.WriteString("\n## Issue #5 targets (turnback with its watch daemon)\n\n")
	b.WriteString("End to end from the CLI process (process start included) with `turnback watch` running. The turn capture is the `end` after the 27-path turn (the same capture a `snap` would make); the ratio is the median of the pairwise daemon / shadow git ratios of the same run.\n\n")
	b.WriteString("| target | tree | measured | verdict |\n|---|---|---|---|\n")
	for _, tree := range []string{"100k", "1m"} {
		label := fmt.Sprintf("turn capture: daemon / shadow git ≤ %.1f", daemonTurnRatioTarget)
		c := cell("turn", tree)
		r, ok := 0.0, false
		if c != nil {
			r, ok = c.Ratio[de]
		}
		if !ok {
			fmt.Fprintf(&b, "| %s | %s | not run | — |\n", label, tree)
			continue
		}
		v := "PASS"
		if r > daemonTurnRatioTarget || c.Failed[de] > 0 {
			v = "MISS"
		}
		fmt.Fprintf(&b, "| %s | %s | %.3f (daemon %s, shadow git %s; %d pairs) | %s |\n", label, tree, r, fmtDur(c.Median[de]), fmtDur(c.Median[peer]), c.RatioN[de], v)
	}
	{
		label := fmt.Sprintf("no-change snap through the daemon ≤ %.0f ms", daemonNoChangeTarget*1000)
		c := cell("nochange", "100k")
		if c == nil || c.N[de] == 0 {
			fmt.Fprintf(&b, "| %s | 100k | not run | — |\n", label)
		} else {
			v := "PASS"
			if c.Median[de] > daemonNoChangeTarget || c.Failed[de] > 0 {
				v = "MISS"
			}
			fmt.Fprintf(&b, "| %s | 100k | %.1f ms median (min %.1f, max %.1f; shadow git %s) | %s |\n", label, c.Median[de]*1000, c.Min[de]*1000, c.Max[de]*1000, fmtDur(c.Median[peer]), v)
		}
	}

	b.WriteString("\n## Watch daemon\n\n")
	b.WriteString("Start-up = `turnback watch --detach` until the daemon serves; up to turnback 01b68d8 (exclusive) the daemon served only after its initial full capture of the tree into the store, later revisions serve first and the first snap waits for that capture, so compare the cold total (medians of the measured cold repetitions; for a run without the cold scenario, the one untimed first capture). Captures through the daemon count every snap and end it ran on the tree (warm-ups and untimed before-state captures included); a full walk or a command the daemon did not run is a silent fallback worth a look. Peak RSS of the daemon is its VmHWM, read from /proc before each `watch --stop`.\n\n")
	b.WriteString("| tree | start-up (watch --detach) | first snap | cold total | daemon CPU in start-up + first snap | peak RSS of the daemon | captures through the daemon | incremental | full walks (reason: count) | not run by the daemon | daemons started untimed | dirs read in a turn capture (median) |\n|---|--:|--:|--:|--:|--:|--:|--:|---|--:|--:|--:|\n")
	for _, tr := range res.Trees {
		var det, snap, tot, cpu []float64
		for _, s := range res.Samples {
			if s.Tree != tr.Name || s.Engine != de || s.Scenario != "cold" || s.Warmup || !s.OK {
				continue
			}
			if v, ok := infoFloat(s.Info, "detach_seconds"); ok {
				det = append(det, v)
			}
			if v, ok := infoFloat(s.Info, "first_snap_seconds"); ok {
				snap = append(snap, v)
			}
			tot = append(tot, s.Seconds)
			if v, ok := infoFloat(s.Info, "daemon_cpu_seconds"); ok {
				cpu = append(cpu, v)
			}
		}
		note := ""
		if len(tot) == 0 {
			if s := tr.FirstCapture[de]; s != nil && s.OK {
				if v, ok := infoFloat(s.Info, "detach_seconds"); ok {
					det = append(det, v)
				}
				if v, ok := infoFloat(s.Info, "first_snap_seconds"); ok {
					snap = append(snap, v)
				}
				if v, ok := infoFloat(s.Info, "daemon_cpu_seconds"); ok {
					cpu = append(cpu, v)
				}
				tot = append(tot, s.Seconds)
				note = " (untimed setup, 1 run)"
			}
		}
		var dirs []float64
		for _, s := range res.Samples {
			if s.Tree == tr.Name && s.Engine == de && s.Scenario == "turn" && !s.Warmup && s.OK {
				if v, ok := infoFloat(s.Info, "watch_dirs_read"); ok {
					dirs = append(dirs, v)
				}
			}
		}
		if len(tot) == 0 && tr.Daemon == nil {
			continue
		}
		rss := "—"
		if tr.DaemonPeakRSSKB > 0 {
			rss = fmt.Sprintf("%.0f MB", float64(tr.DaemonPeakRSSKB)/1000)
		}
		dc := tr.Daemon
		if dc == nil {
			dc = &daemonCounts{}
		}
		var walks []string
		for why, n := range dc.FullWalks {
			walks = append(walks, fmt.Sprintf("%s: %d", why, n))
		}
		sort.Strings(walks)
		w := "none"
		if len(walks) > 0 {
			w = "**" + strings.Join(walks, "; ") + "**"
		}
		dm := "—"
		if len(dirs) > 0 {
			dm = fmt.Sprintf("%.0f", median(dirs))
		}
		fmt.Fprintf(&b, "| %s | %s%s | %s | %s | %s | %s | %d | %d | %s | %d | %d | %s |\n", tr.Name, fmtDur(median(det)), note, fmtDur(median(snap)), fmtDur(median(tot)), fmtDur(median(cpu)),
			rss, dc.Captures, dc.Incremental, w, dc.NotForwarded, dc.Restarts, dm)
	}
	return b.String()
}
