//go:build linux

package engine

import (
	"context"
	"fmt"
	"time"

	"github.com/turnback/turnback/bench/report"
)

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
func (e *Daemon) awaitAuto(ctx context.Context, op *Op, exited time.Time, files float64) error {
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
	ticks := pidCPUTicks(e.pid)
	e.cpuTicks = ticks
	cpu := time.Duration(ticks) * clockTick
	mergeInfo(op, map[string]any{"autostart": "ready", "autostart_seconds": took.Seconds(), "autostart_daemon_cpu_seconds": cpu.Seconds(),
		"daemon_pid": e.pid, "daemon_hwm_kb": e.notePeak()})
	return nil
}

// ensure makes sure a daemon serves the folder (untimed) and returns its
// request count.
func (e *Daemon) ensure(ctx context.Context) (int64, bool, error) {
	before := e.pid
	var p procRun
	d, err := e.detach(ctx, &p)
	if err != nil {
		return 0, false, err
	}
	started := before == 0 || d.PID != before || !daemonAlive(before)
	if started {
		e.restarts++
		Logf("started a watch daemon (pid %d) outside the timing", e.pid)
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
func (e *Daemon) autoEnsure(ctx context.Context, info map[string]any) (int64, bool, error) {
	before := e.pid
	d, err := e.status(ctx)
	if err != nil {
		return 0, false, err
	}
	if d.PID == 0 {
		e.counts.NoDaemon++
		info["daemon_serving"] = false
		Logf("%s: no watch daemon serves the folder before this step: running it without one", e.Name())
		return 0, false, nil
	}
	if d.PID != before {
		e.restarts++
		info["daemon_appeared"] = true
		Logf("%s: watch daemon pid %d started by itself", e.Name(), d.PID)
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

// prepare readies a step, untimed: for a step after the cold capture, a
// serving daemon (explicit mode: started if need be); for the automatic
// mode's cold capture, the certainty that no daemon serves yet. It
// returns the daemon's request count and whether a daemon serves.
func (e *Daemon) prepare(ctx context.Context, cold bool, pre map[string]any) (int64, bool, error) {
	switch {
	case !cold && e.auto:
		return e.autoEnsure(ctx, pre)
	case !cold:
		req0, started, err := e.ensure(ctx)
		pre["daemon_started_untimed"] = started
		return req0, true, err
	case e.auto:
		// The automatic mode's cold capture is a plain snap into an
		// empty store: no daemon may serve the folder yet.
		d, err := e.status(ctx)
		if err == nil && d.PID != 0 {
			err = fmt.Errorf("a watch daemon (pid %d) serves the folder before a cold capture", d.PID)
		}
		return 0, false, err
	}
	return 0, true, nil
}

// measured runs fn as one operation through the daemon: the daemon's CPU
// time during it is added to the client processes', its VmHWM noted, and
// the daemon's request count checked (the command was forwarded).
func (e *Daemon) measured(ctx context.Context, cold bool, fn func(p *procRun) error) (Op, *procRun, error) {
	pre := map[string]any{}
	req0, serving, err := e.prepare(ctx, cold, pre)
	if err != nil {
		return Op{Info: pre}, nil, err
	}
	// A cold capture (explicit mode) starts the daemon: all its CPU
	// time is the operation's.
	pid := e.pid
	if !serving {
		pid = 0
	}
	var ticks0 int64
	if !cold && pid != 0 {
		ticks0 = pidCPUTicks(pid)
	}
	p := startOp()
	err = fn(p)
	if cold && !e.auto {
		pid = e.pid // started by fn
	}
	// The daemon's CPU time counts as the operation's (wait4 of the
	// client does not include it: the daemon is not its waited child).
	var daemonCPU time.Duration
	if pid != 0 {
		ticks := pidCPUTicks(pid)
		if ticks >= ticks0 {
			daemonCPU = time.Duration(ticks-ticks0) * clockTick
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
	e.checkForwarded(ctx, &op, pid, req0, err)
	return op, p, err
}

// checkForwarded records, untimed, whether the daemon pid ran the
// command (its request count went up from req0; pings and --status do
// not count as requests, and a daemon started for a cold capture has
// served only the snap).
func (e *Daemon) checkForwarded(ctx context.Context, op *Op, pid int, req0 int64, err error) {
	switch {
	case err != nil:
	case pid != 0:
		if d, derr := e.status(ctx); derr == nil {
			op.Info["forwarded"] = d.PID == pid && d.Requests > req0
			op.Info["daemon_requests"] = d.Requests
		}
	default:
		op.Info["forwarded"] = false
	}
}

func (e *Daemon) Capture(ctx context.Context, phase string, rep int) (Op, error) {
	args := captureArgs(phase)
	cold := phase == PhaseCold
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
	doc, err := readSnap(&op, p, args[0], phase)
	if err != nil {
		return op, err
	}
	if cold && e.auto {
		// No daemon ran this snap; the one it started in the
		// background is waited for here, untimed.
		op.Info["forwarded"] = false
		files, _ := report.InfoFloat(op.Info, "files")
		return op, e.awaitAuto(ctx, &op, exited, files)
	}
	e.countCapture(&op, doc)
	return op, nil
}

// countCapture records how a capture through the daemon read the tree
// (its stats.watch).
func (e *Daemon) countCapture(op *Op, doc *snapDoc) {
	w, watched := doc.Stats["watch"].(map[string]any)
	if watched {
		mergeInfo(op, map[string]any{"watch_incremental": w["incremental"], "watch_full_walk": w["full_walk"],
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
}

func (e *Daemon) Undo(ctx context.Context, rep int) (Op, error) {
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
