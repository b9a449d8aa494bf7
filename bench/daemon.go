//go:build linux

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
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
// forwarded to the daemon over its unix socket. Fresh and Close stop the
// daemon (reading its peak RSS, VmHWM, first). It runs in one of two modes.
//
// Explicit (engine daemon, "turnback-daemon"): the cold capture is
// `watch --detach` (the daemon's start-up, including its initial full
// capture) followed by the first `snap`, timed together; every other step
// goes through a running daemon, started untimed first if it is not
// running.
//
// Automatic (engine cli, "turnback-cli"): the CLI as users get it, with
// TURNBACK_AUTO_WATCH at its default, so the cold `snap` starts a daemon in
// the background as it exits. The cold capture is that plain snap alone;
// the harness then waits, untimed, until `watch --status` says the daemon
// is ready and records the background start-up (time from the snap's exit
// to ready, the daemon's CPU meanwhile) in the sample's Info, not in its
// time. The harness never starts a daemon itself: a step that finds none
// serving (a tree under the threshold, a daemon that died) is recorded as
// such and runs anyway, so a failure of the automatic start shows.
type tbDaemon struct {
	tbCLI
	auto     bool  // automatic mode (see above)
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
	// Restarts: explicit mode, daemons the harness started untimed
	// outside a cold capture; automatic mode, daemons that appeared
	// outside a cold capture (started by a command run without one).
	Restarts int `json:"restarts"`
	// NoDaemon (automatic mode): steps (captures and undos) before which
	// no daemon served the folder.
	NoDaemon int `json:"no_daemon,omitempty"`
	// PeakRSSKB is the largest VmHWM of the engine's daemons on the tree.
	PeakRSSKB int64 `json:"peak_rss_kb,omitempty"`
}

func newTBDaemon(bin string) *tbDaemon { return &tbDaemon{tbCLI: tbCLI{bin: bin}} }

// newTBAutoCLI is the cli engine: the default CLI, whose captures start a
// watch daemon by themselves.
func newTBAutoCLI(bin string) *tbDaemon { return &tbDaemon{tbCLI: tbCLI{bin: bin}, auto: true} }

func (e *tbDaemon) Name() string {
	if e.auto {
		return "turnback-cli"
	}
	return "turnback-daemon"
}

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

// result is what the engine measured on its tree's daemons.
func (e *tbDaemon) result() *daemonCounts {
	c := e.counts
	c.Restarts = e.restarts
	c.PeakRSSKB = e.peakKB
	return &c
}

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
	e.adopt(d.PID)
	return d, nil
}

// adopt makes pid the engine's daemon and registers it for the sweep of
// leaked daemons; it says whether pid is a daemon the engine did not know.
func (e *tbDaemon) adopt(pid int) bool {
	if pid == 0 || pid == e.pid {
		return false
	}
	if e.pid != 0 {
		logf("%s: watch daemon pid %d replaced by pid %d", e.Name(), e.pid, pid)
	}
	e.pid, e.cpuTicks = pid, 0
	daemons.Lock()
	daemons.pids[pid] = true
	daemons.Unlock()
	return true
}

// statusDoc is what `watch --status --json` prints: the daemon's info, or
// running false.
type statusDoc struct {
	PID      int   `json:"pid"` // 0: no daemon serves the folder
	Requests int64 `json:"requests"`
	Ready    bool  `json:"ready"`
}

// status asks, untimed, whether a daemon serves the folder (starting
// none) and adopts it.
func (e *tbDaemon) status(ctx context.Context) (statusDoc, error) {
	var d statusDoc
	var p procRun
	if err := p.run(e.cmd(ctx, "watch", "--status")); err != nil {
		return d, err
	}
	if err := json.Unmarshal(p.stdout.Bytes(), &d); err != nil {
		return d, fmt.Errorf("turnback watch --status: bad JSON %q: %v", strings.TrimSpace(p.stdout.String()), err)
	}
	if d.PID == 0 {
		e.pid = 0 // gone (its peak RSS was read after the last step)
	} else {
		e.adopt(d.PID)
	}
	return d, nil
}

// awaitReady polls `watch --status` (untimed) until a daemon serves the
// folder and has made its first capture. appear bounds the wait for a
// daemon to show up at all; ready the wait for its first capture.
func (e *tbDaemon) awaitReady(ctx context.Context, appear, ready time.Duration) (statusDoc, time.Duration, error) {
	start := time.Now()
	for {
		d, err := e.status(ctx)
		if err != nil || d.Ready {
			return d, time.Since(start), err
		}
		limit := ready
		if d.PID == 0 {
			limit = appear
		}
		if time.Since(start) > limit {
			if d.PID == 0 {
				return d, time.Since(start), fmt.Errorf("no watch daemon after %s", limit)
			}
			return d, time.Since(start), fmt.Errorf("watch daemon pid %d not ready after %s", d.PID, limit)
		}
		select {
		case <-ctx.Done():
			return d, time.Since(start), ctx.Err()
		case <-time.After(30 * time.Millisecond):
		}
	}
}

// Bounds of the untimed waits for an automatically started daemon.
const (
	autoAppearTimeout = time.Minute
	autoReadyTimeout  = 30 * time.Minute
)

// autoWatchThreshold is the CLI's default TURNBACK_AUTO_WATCH: captures of
// at least this many files start a daemon.
const autoWatchThreshold = 2000

// awaitAuto, after the timed cold snap of the automatic mode, waits
// untimed for the daemon that snap started in the background and records
// its start-up in op.Info: seconds from the snap's exit to ready (as seen
// by polling `watch --status` every 30 ms), and the daemon's CPU time
// until then. It fails only when a daemon was due (files captured >= the
// threshold) and none became ready.
func (e *tbDaemon) awaitAuto(ctx context.Context, op *Op, exited time.Time, files float64) error {
	due := files >= autoWatchThreshold
	appear := autoAppearTimeout
	if !due {
		appear = 300 * time.Millisecond
	}
	d, _, err := e.awaitReady(ctx, appear, autoReadyTimeout)
	took := time.Since(exited)
	if err != nil {
		msg := err.Error()
		if tail := e.logTail(); tail != "" {
			msg += "; watch.log: " + tail
		}
		if !due && d.PID == 0 {
			op.Info["autostart"] = fmt.Sprintf("none: %.0f files captured, under the threshold of %d", files, autoWatchThreshold)
			return nil
		}
		op.Info["autostart"] = "failed: " + msg
		return fmt.Errorf("automatic watch daemon: %s", msg)
	}
	ticks := procPidCPUTicks(e.pid)
	e.cpuTicks = ticks
	cpu := time.Duration(ticks) * 10 * time.Millisecond
	mergeInfo(op, map[string]any{"autostart": "ready", "autostart_seconds": took.Seconds(), "autostart_daemon_cpu_seconds": cpu.Seconds(),
		"daemon_pid": e.pid, "daemon_hwm_kb": e.notePeak()})
	return nil
}

// logTail is the last line of the store's watch.log.
func (e *tbDaemon) logTail() string {
	data, err := os.ReadFile(filepath.Join(e.store, "watch.log"))
	if err != nil {
		return ""
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	return lines[len(lines)-1]
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

// autoEnsure (automatic mode) looks, untimed, for the daemon serving the
// folder without starting one; a daemon still making its first capture
// (one a command started as it exited) is waited for. It returns the
// daemon's request count and whether one serves.
func (e *tbDaemon) autoEnsure(ctx context.Context, info map[string]any) (int64, bool, error) {
	before := e.pid
	d, err := e.status(ctx)
	if err != nil {
		return 0, false, err
	}
	if d.PID == 0 {
		e.counts.NoDaemon++
		info["daemon_serving"] = false
		logf("%s: no watch daemon serves the folder before this step: running it without one", e.Name())
		return 0, false, nil
	}
	if d.PID != before {
		e.restarts++
		info["daemon_appeared"] = true
		logf("%s: watch daemon pid %d started by itself", e.Name(), d.PID)
	}
	if !d.Ready {
		var waited time.Duration
		d, waited, err = e.awaitReady(ctx, autoAppearTimeout, autoReadyTimeout)
		info["waited_for_ready_seconds"] = waited.Seconds()
		if err != nil {
			return 0, false, err
		}
	}
	info["daemon_serving"] = true
	return d.Requests, true, nil
}

// measured runs fn as one operation through the daemon: the daemon's CPU
// time during it is added to the client processes', its VmHWM noted, and
// the daemon's request count checked (the command was forwarded).
func (e *tbDaemon) measured(ctx context.Context, cold bool, fn func(p *procRun) error) (Op, *procRun, error) {
	var req0 int64
	started, serving := false, true
	pre := map[string]any{}
	if !cold {
		var err error
		if e.auto {
			req0, serving, err = e.autoEnsure(ctx, pre)
		} else {
			req0, started, err = e.ensure(ctx)
			pre["daemon_started_untimed"] = started
		}
		if err != nil {
			return Op{Info: pre}, nil, err
		}
	} else if e.auto {
		// The automatic mode's cold capture is a plain snap into an
		// empty store: no daemon may serve the folder yet.
		d, err := e.status(ctx)
		if err != nil {
			return Op{Info: pre}, nil, err
		}
		if d.PID != 0 {
			return Op{Info: pre}, nil, fmt.Errorf("a watch daemon (pid %d) serves the folder before a cold capture", d.PID)
		}
		serving = false
	}
	// A cold capture (explicit mode) starts the daemon: all its CPU
	// time is the operation's.
	pid := e.pid
	if !serving {
		pid = 0
	}
	var ticks0 int64
	if !cold && pid != 0 {
		ticks0 = procPidCPUTicks(pid)
	}
	p := startOp()
	err := fn(p)
	if cold && !e.auto {
		pid = e.pid // started by fn
	}
	// The daemon's CPU time counts as the operation's (wait4 of the
	// client does not include it: the daemon is not its waited child).
	var daemonCPU time.Duration
	if pid != 0 {
		ticks := procPidCPUTicks(pid)
		if ticks >= ticks0 {
			daemonCPU = time.Duration(ticks-ticks0) * 10 * time.Millisecond
		}
		e.cpuTicks = ticks
	}
	clientCPU := p.op.CPU
	p.op.CPU += daemonCPU
	op := p.finish()
	mergeInfo(&op, pre)
	mergeInfo(&op, map[string]any{"daemon_pid": pid, "daemon_cpu_seconds": daemonCPU.Seconds(), "client_cpu_seconds": clientCPU.Seconds()})
	if pid != 0 {
		op.Info["daemon_hwm_kb"] = e.notePeak()
	}
	if err == nil && pid != 0 {
		// Untimed: was the command run by the daemon? (pings and
		// --status do not count as requests; a daemon started for a
		// cold capture has served only the snap.)
		if d, derr := e.status(ctx); derr == nil {
			op.Info["forwarded"] = d.PID == pid && d.Requests > req0
			op.Info["daemon_requests"] = d.Requests
		}
	} else if err == nil {
		op.Info["forwarded"] = false
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
	var exited time.Time
	op, p, err := e.measured(ctx, cold, func(p *procRun) error {
		if cold && !e.auto {
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
		exited = time.Now()
		snapWall = p.wall - w0
		return err
	})
	if cold && !e.auto {
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
	if cold && e.auto {
		// No daemon ran this snap; the one it started in the
		// background is waited for here, untimed.
		op.Info["forwarded"] = false
		files, _ := infoFloat(op.Info, "files")
		return op, e.awaitAuto(ctx, &op, exited, files)
	}
	w, watched := doc.Stats["watch"].(map[string]any)
	if watched {
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
	} else if watched {
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

// treeDaemon is what engine's watch daemons did on tr (nil: none ran).
func treeDaemon(tr *TreeResult, engine string) *daemonCounts {
	if c := tr.Daemons[engine]; c != nil {
		return c
	}
	if engine == "turnback-daemon" && tr.Daemon != nil {
		// Results from before Daemons.
		c := *tr.Daemon
		c.PeakRSSKB = max(c.PeakRSSKB, tr.DaemonPeakRSSKB)
		return &c
	}
	return nil
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
func walkCells(dc *daemonCounts) string {
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
			if v, ok := infoFloat(s.Info, "watch_dirs_read"); ok {
				dirs = append(dirs, v)
			}
		}
	}
	if len(dirs) == 0 {
		return "—"
	}
	return fmt.Sprintf("%.0f", median(dirs))
}

// daemonSection is the report's issue #5 table and the daemons' details.
func daemonSection(res *Results) string {
	var b strings.Builder
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
	cell := func(sc, tree string) *Cell {
		for _, c := range res.Summary {
			if c.Scenario == sc && c.Tree == tree {
				return c
			}
		}
		return nil
	}
	if hasEngine[de] {
		b.WriteString("\n## Issue #5 targets (turnback with its watch daemon)\n\n")
		fmt.Fprintf(&b, "Engine: %s ", engineLabels[de])
		if de == "turnback-cli" {
			b.WriteString("(its daemon started automatically by the first capture; a step no daemon served still counts here, see the Watch daemon section). ")
		} else {
			b.WriteString("(daemon started by `watch --detach`). ")
		}
		b.WriteString("End to end from the CLI process (process start included) with `turnback watch` running. The turn capture is the `end` after the 27-path turn (the same capture a `snap` would make); the ratio is the median of the pairwise engine / shadow git ratios of the same run.\n\n")
		b.WriteString("| target | tree | measured | verdict |\n|---|---|---|---|\n")
		for _, tree := range []string{"100k", "1m"} {
			label := fmt.Sprintf("turn capture: %s / shadow git ≤ %.1f", engineLabels[de], daemonTurnRatioTarget)
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
			fmt.Fprintf(&b, "| %s | %s | %.3f (%s %s, shadow git %s; %d pairs) | %s |\n", label, tree, r, engineLabels[de], fmtDur(c.Median[de]), fmtDur(c.Median[peer]), c.RatioN[de], v)
		}
		label := fmt.Sprintf("no-change snap through the daemon (%s) ≤ %.0f ms", engineLabels[de], daemonNoChangeTarget*1000)
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
	b.WriteString("Captures through a daemon count every snap and end on the tree (warm-ups and untimed before-state captures included): incremental, a full walk (with the daemon's reason), or not run by the daemon at all; a full walk or a command the daemon did not run is a silent fallback worth a look. Peak RSS of a daemon is its VmHWM, read from /proc after each step and before each `watch --stop`. The daemon needs one inotify watch per directory (see /proc/sys/fs/inotify/max_user_watches).\n")

	if res.CLIAutoWatch && hasEngine["turnback-cli"] {
		b.WriteString("\n### Started automatically (turnback CLI)\n\n")
		b.WriteString("The first `snap` into an empty store (the cold capture, timed alone) starts `turnback watch` in the background as it exits. Background start-up = from that snap's exit until `watch --status` reports the daemon ready (watching, first capture done), polled every 30 ms, untimed and **not part of the cold capture's time**; daemon CPU = the daemon's CPU time until then. Medians of the measured cold repetitions (for a run without the cold scenario, the one untimed first capture). Steps without a daemon = captures and undos before which no daemon served the folder (they ran anyway, reading the tree themselves); daemons that appeared again = daemons a later command started after one was gone.\n\n")
		b.WriteString("| tree | cold snap (timed) | background start-up: snap exit → ready | daemon CPU in start-up | start-up result | peak RSS of the daemon | captures after the cold one | incremental | full walks (reason: count) | not run by the daemon | steps without a daemon | daemons that appeared again | dirs read in a turn capture (median) |\n|---|--:|--:|--:|---|--:|--:|--:|---|--:|--:|--:|--:|\n")
		for _, tr := range res.Trees {
			var snap, up, cpu []float64
			results := map[string]int{}
			add := func(s *Sample) {
				snap = append(snap, s.Seconds)
				if v, ok := infoFloat(s.Info, "autostart_seconds"); ok {
					up = append(up, v)
				}
				if v, ok := infoFloat(s.Info, "autostart_daemon_cpu_seconds"); ok {
					cpu = append(cpu, v)
				}
				if r, ok := s.Info["autostart"].(string); ok {
					results[r]++
				}
			}
			for _, s := range res.Samples {
				if s.Tree == tr.Name && s.Engine == "turnback-cli" && s.Scenario == "cold" && !s.Warmup && s.OK {
					add(s)
				}
			}
			note := ""
			if len(snap) == 0 {
				if s := tr.FirstCapture["turnback-cli"]; s != nil && s.OK {
					add(s)
					note = " (untimed setup, 1 run)"
				}
			}
			dc := treeDaemon(tr, "turnback-cli")
			if len(snap) == 0 && dc == nil {
				continue
			}
			if dc == nil {
				dc = &daemonCounts{}
			}
			var rs []string
			for r, n := range results {
				rs = append(rs, fmt.Sprintf("%s ×%d", r, n))
			}
			sort.Strings(rs)
			rss := "—"
			if dc.PeakRSSKB > 0 {
				rss = fmt.Sprintf("%.0f MB", float64(dc.PeakRSSKB)/1000)
			}
			fmt.Fprintf(&b, "| %s | %s%s | %s | %s | %s | %s | %d | %d | %s | %d | %d | %d | %s |\n", tr.Name, fmtDur(median(snap)), note, fmtDur(median(up)), fmtDur(median(cpu)), strings.Join(rs, "; "),
				rss, dc.Captures, dc.Incremental, walkCells(dc), dc.NotForwarded, dc.NoDaemon, dc.Restarts, turnDirsRead(res, tr.Name, "turnback-cli"))
		}
	}

	if !hasEngine["turnback-daemon"] {
		return b.String()
	}
	const xe = "turnback-daemon"
	b.WriteString("\n### Started by `watch --detach` (turnback daemon)\n\n")
	b.WriteString("Start-up = `turnback watch --detach` until the daemon serves; up to turnback 01b68d8 (exclusive) the daemon served only after its initial full capture of the tree into the store, later revisions serve first and the first snap waits for that capture, so compare the cold total (medians of the measured cold repetitions; for a run without the cold scenario, the one untimed first capture).\n\n")
	b.WriteString("| tree | start-up (watch --detach) | first snap | cold total | daemon CPU in start-up + first snap | peak RSS of the daemon | captures through the daemon | incremental | full walks (reason: count) | not run by the daemon | daemons started untimed | dirs read in a turn capture (median) |\n|---|--:|--:|--:|--:|--:|--:|--:|---|--:|--:|--:|\n")
	for _, tr := range res.Trees {
		var det, snap, tot, cpu []float64
		add := func(s *Sample) {
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
		}
		for _, s := range res.Samples {
			if s.Tree == tr.Name && s.Engine == xe && s.Scenario == "cold" && !s.Warmup && s.OK {
				add(s)
			}
		}
		note := ""
		if len(tot) == 0 {
			if s := tr.FirstCapture[xe]; s != nil && s.OK {
				add(s)
				note = " (untimed setup, 1 run)"
			}
		}
		dc := treeDaemon(tr, xe)
		if len(tot) == 0 && dc == nil {
			continue
		}
		if dc == nil {
			dc = &daemonCounts{}
		}
		rss := "—"
		if dc.PeakRSSKB > 0 {
			rss = fmt.Sprintf("%.0f MB", float64(dc.PeakRSSKB)/1000)
		}
		fmt.Fprintf(&b, "| %s | %s%s | %s | %s | %s | %s | %d | %d | %s | %d | %d | %s |\n", tr.Name, fmtDur(median(det)), note, fmtDur(median(snap)), fmtDur(median(tot)), fmtDur(median(cpu)),
			rss, dc.Captures, dc.Incremental, walkCells(dc), dc.NotForwarded, dc.Restarts, turnDirsRead(res, tr.Name, xe))
	}
	return b.String()
}
