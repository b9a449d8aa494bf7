//go:build linux

package engine

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// NoWatchCLI is the turnback CLI without a watch daemon (engine
// cli-nowatch): TURNBACK_AUTO_WATCH=0, so no command starts one and every
// command reads the tree itself, as every CLI command did before daemons
// started by themselves. Daemon builds on it.
type NoWatchCLI struct {
	bin         string
	tree, store string
	env         []string
	noWatch     bool // TURNBACK_AUTO_WATCH=0
}

// NewNoWatchCLI is the cli-nowatch engine running the turnback binary
// bin.
func NewNoWatchCLI(bin string) *NoWatchCLI { return &NoWatchCLI{bin: bin, noWatch: true} }

func (e *NoWatchCLI) Name() string { return "turnback-cli-nowatch" }

func (e *NoWatchCLI) Available() (bool, string) {
	if _, err := os.Stat(e.bin); err != nil {
		return false, "turnback binary not built"
	}
	return true, ""
}

func (e *NoWatchCLI) Setup(name, dir, work string) error {
	e.tree, e.store = dir, filepath.Join(work, "store")
	xdg := filepath.Join(work, "xdg")
	if err := os.MkdirAll(xdg, 0o755); err != nil {
		return err
	}
	e.env = append(CleanEnv(), "XDG_DATA_HOME="+xdg)
	if e.noWatch {
		e.env = append(e.env, "TURNBACK_AUTO_WATCH=0")
	}
	return nil
}

func (e *NoWatchCLI) Fresh() error     { return os.RemoveAll(e.store) }
func (e *NoWatchCLI) StoreDir() string { return e.store }
func (e *NoWatchCLI) Close() error     { return nil }

// checkNoDaemon records, untimed, that no watch daemon served the folder
// after the step (none may: TURNBACK_AUTO_WATCH=0).
func (e *NoWatchCLI) checkNoDaemon(ctx context.Context, op *Op) error {
	d, err := e.watchStatus(ctx)
	if err != nil {
		return err
	}
	op.Info["daemon_running"] = d.PID != 0
	if d.PID != 0 {
		daemons.add(d.PID)
		return fmt.Errorf("a watch daemon (pid %d) serves the folder although TURNBACK_AUTO_WATCH=0", d.PID)
	}
	return nil
}

func (e *NoWatchCLI) cmd(ctx context.Context, args ...string) *exec.Cmd {
	c := exec.CommandContext(ctx, e.bin, append([]string{"--store", e.store, "-C", e.tree, "--json"}, args...)...)
	c.Env = e.env
	c.Dir = e.tree
	return c
}

// captureArgs is the command that captures in phase: snap, or end for
// the turn's after-state.
func captureArgs(phase string) []string {
	if phase == PhaseTurn {
		return []string{"end"}
	}
	return []string{"snap", "-m", "bench " + phase}
}

func (e *NoWatchCLI) Capture(ctx context.Context, phase string, rep int) (Op, error) {
	args := captureArgs(phase)
	op, p, err := oneCommand(e.cmd(ctx, args...))
	if err != nil {
		return op, err
	}
	doc, err := readSnap(&op, p, args[0], phase)
	if err != nil {
		return op, err
	}
	_, watched := doc.Stats["watch"]
	op.Info["forwarded"] = watched
	return op, e.checkNoDaemon(ctx, &op)
}

func (e *NoWatchCLI) Undo(ctx context.Context, rep int) (Op, error) {
	op, p, err := oneCommand(e.cmd(ctx, "undo"))
	if err != nil {
		return op, err
	}
	if err := checkUndoDoc(&op, p.stdout.Bytes()); err != nil {
		return op, err
	}
	op.Info["forwarded"] = false // no daemon: checked just below
	return op, e.checkNoDaemon(ctx, &op)
}
