//go:build linux

package engine

import (
	"context"
	"fmt"
)

// Steps of the back-to-back scenario, in order.
const (
	StepCold     = "cold"
	StepNoChange = "nochange"
	StepTurn     = "turn"
	StepUndo     = "undo"
)

// BackToBack is an engine that runs the steps of the back-to-back
// scenario as a script would: each step is its commands run and timed
// from the shell, and nothing is waited for or checked between steps
// (no daemon status, no settle, no sync). The cold step captures into an
// empty store (Fresh first), the no-change step is the turn's
// before-state, the turn step captures the after-state and the undo
// goes back to the before-state.
type BackToBack interface {
	Engine
	Step(ctx context.Context, step string) (Op, error)
}

// Step runs one back-to-back step as one turnback command: snap (cold,
// nochange), end (turn) or undo. Its --json output is read after the
// command has exited; whether a daemon ran it is recorded as forwarded
// (a capture's stats.watch) but nothing is asked of any daemon.
func (e *NoWatchCLI) Step(ctx context.Context, step string) (Op, error) {
	var args []string
	switch step {
	case StepCold, StepNoChange:
		args = captureArgs(step)
	case StepTurn:
		args = captureArgs(PhaseTurn)
	case StepUndo:
		args = []string{"undo"}
	default:
		return Op{}, fmt.Errorf("back-to-back: unknown step %q", step)
	}
	op, p, err := oneCommand(e.cmd(ctx, args...))
	if err != nil {
		return op, err
	}
	if step == StepUndo {
		return op, checkUndoDoc(&op, p.stdout.Bytes())
	}
	phase := step
	if step == StepTurn {
		phase = PhaseTurn
	}
	doc, err := readSnap(&op, p, args[0], phase)
	if err != nil {
		return op, err
	}
	_, watched := doc.Stats["watch"]
	op.Info["forwarded"] = watched
	return op, nil
}

// Step runs the step as NoWatchCLI does, with the CLI's automatic
// daemon; after the undo (the last step) it asks, untimed, which daemon
// serves the folder, so that Fresh and Close stop it and its peak RSS is
// read. Only the cli engine runs the scenario (the explicit daemon
// engine would start its daemon as the cli engine does).
func (e *Daemon) Step(ctx context.Context, step string) (Op, error) {
	if !e.auto {
		return Op{}, fmt.Errorf("back-to-back: the %s engine does not run it", e.Name())
	}
	op, err := e.NoWatchCLI.Step(ctx, step)
	if step == StepUndo {
		if d, serr := e.status(ctx); serr == nil {
			mergeInfo(&op, map[string]any{"daemon_pid_after": d.PID})
			e.notePeak()
		}
	}
	return op, err
}

// Step runs the step as the shadow git engine's capture or undo: the
// no-change capture records the before-state the undo restores.
func (e *Git) Step(ctx context.Context, step string) (Op, error) {
	switch step {
	case StepCold:
		return e.Capture(ctx, PhaseCold, 0)
	case StepNoChange:
		return e.Capture(ctx, PhaseBefore, 0)
	case StepTurn:
		return e.Capture(ctx, PhaseTurn, 0)
	case StepUndo:
		return e.Undo(ctx, 0)
	}
	return Op{}, fmt.Errorf("back-to-back: unknown step %q", step)
}
