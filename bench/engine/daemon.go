//go:build linux

package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/turnback/turnback/bench/report"
)

// Daemon is the turnback CLI (one process per command, process start
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
type Daemon struct {
	NoWatchCLI
	auto     bool  // automatic mode (see above)
	pid      int   // the running daemon, 0: none known
	cpuTicks int64 // the daemon's CPU time (clock ticks) when last read
	// peakKB is the largest VmHWM of any daemon this engine ran on the
	// current tree.
	peakKB   int64
	restarts int // daemons started outside a cold capture
	// How the captures through the daemon read the tree (all of them,
	// untimed before-state captures and warm-ups included).
	counts report.DaemonCounts
}

// NewDaemon is the daemon engine: the CLI with a daemon started by
// `watch --detach`.
func NewDaemon(bin string) *Daemon { return &Daemon{NoWatchCLI: NoWatchCLI{bin: bin}} }

// NewCLI is the cli engine: the default CLI, whose captures start a
// watch daemon by themselves.
func NewCLI(bin string) *Daemon { return &Daemon{NoWatchCLI: NoWatchCLI{bin: bin}, auto: true} }

func (e *Daemon) Name() string {
	if e.auto {
		return "turnback-cli"
	}
	return "turnback-daemon"
}

// Auto says whether the engine is the CLI with its automatic daemon.
func (e *Daemon) Auto() bool { return e.auto }

func (e *Daemon) Setup(name, dir, work string) error {
	e.pid, e.peakKB, e.restarts, e.counts = 0, 0, 0, report.DaemonCounts{FullWalks: map[string]int{}}
	return e.NoWatchCLI.Setup(name, dir, work)
}

func (e *Daemon) Fresh() error {
	if err := e.stop(); err != nil {
		return err
	}
	return os.RemoveAll(e.store)
}

func (e *Daemon) Close() error { return e.stop() }

// Result is what the engine measured on its tree's daemons.
func (e *Daemon) Result() *report.DaemonCounts {
	c := e.counts
	c.Restarts = e.restarts
	c.PeakRSSKB = e.peakKB
	return &c
}

// registry lists every daemon pid the harness started, so that a run
// that ends early leaves none behind.
type registry struct {
	sync.Mutex
	pids map[int]bool
}

var daemons = registry{pids: map[int]bool{}}

func (r *registry) add(pid int) {
	r.Lock()
	r.pids[pid] = true
	r.Unlock()
}

func (r *registry) remove(pid int) {
	r.Lock()
	delete(r.pids, pid)
	r.Unlock()
}

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
	Logf("watch daemon pid %d did not stop when asked: sending SIGTERM", pid)
	syscall.Kill(pid, syscall.SIGTERM)
	for i := 0; i < 300 && daemonAlive(pid); i++ {
		time.Sleep(100 * time.Millisecond)
	}
	if daemonAlive(pid) {
		Logf("watch daemon pid %d still running: sending SIGKILL", pid)
		syscall.Kill(pid, syscall.SIGKILL)
	}
}

// StopDaemons kills whatever daemon the engines started that is still
// running (normally none: engines stop theirs).
func StopDaemons() {
	daemons.Lock()
	defer daemons.Unlock()
	for pid := range daemons.pids {
		killDaemon(pid)
		delete(daemons.pids, pid)
	}
}

// notePeak reads the daemon's VmHWM into the engine's peak and returns it.
func (e *Daemon) notePeak() int64 {
	if e.pid == 0 {
		return 0
	}
	kb := pidStatusKB(e.pid, "VmHWM")
	e.peakKB = max(e.peakKB, kb)
	return kb
}

// stop reads the daemon's peak RSS and stops it (`watch --stop`, which
// waits until the store is released); a daemon that does not stop is
// killed.
func (e *Daemon) stop() error {
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
		daemons.remove(pid)
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
func (e *Daemon) detach(ctx context.Context, p *procRun) (daemonDoc, error) {
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
func (e *Daemon) adopt(pid int) bool {
	if pid == 0 || pid == e.pid {
		return false
	}
	if e.pid != 0 {
		Logf("%s: watch daemon pid %d replaced by pid %d", e.Name(), e.pid, pid)
	}
	e.pid, e.cpuTicks = pid, 0
	daemons.add(pid)
	return true
}

// status asks, untimed, whether a daemon serves the folder (starting
// none) and adopts it.
func (e *Daemon) status(ctx context.Context) (statusDoc, error) {
	d, err := e.watchStatus(ctx)
	if err != nil {
		return d, err
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
func (e *Daemon) awaitReady(ctx context.Context, appear, ready time.Duration) (statusDoc, time.Duration, error) {
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

// logTail is the last line of the store's watch.log.
func (e *Daemon) logTail() string {
	data, err := os.ReadFile(filepath.Join(e.store, "watch.log"))
	if err != nil {
		return ""
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	return lines[len(lines)-1]
}
