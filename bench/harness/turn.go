//go:build linux

package harness

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/turnback/turnback/bench/engine"
	"github.com/turnback/turnback/bench/gen"
	"github.com/turnback/turnback/bench/truth"
)

// turnAndUndo is the turn cycle: per repetition and engine, the
// before-state captured untimed, the turn applied, the turn capture and
// the undo timed, and the tree verified.
func (r *treeRun) turnAndUndo() error {
	if !r.cfg.Scenarios["turn"] && !r.cfg.Scenarios["undo"] {
		return nil
	}
	start := time.Now()
	turn, err := r.planTurn()
	if err != nil {
		return err
	}
	defer func() {
		// Whatever happened, leave the tree as it was.
		if v, err := truth.Verify(r.t.Dir, r.t.Truth, false); err == nil && v.Count > 0 {
			turn.Reset(r.t.Dir)
		}
	}()
	if err := r.repeat(true, func(e engine.Engine, rep int) error { return r.turnCycle(e, rep, turn) }); err != nil {
		return err
	}
	r.step("turn+undo", start)
	return nil
}

// planTurn lists the files every engine captures and plans the turn.
func (r *treeRun) planTurn() (*gen.Turn, error) {
	gd := filepath.Join(r.work, "candidates.git")
	os.RemoveAll(gd)
	defer os.RemoveAll(gd)
	if out, err := engine.GitCmd(r.ctx, gd, r.t.Dir, "init", "-q").CombinedOutput(); err != nil {
		return nil, fmt.Errorf("git init: %v: %s", err, out)
	}
	out, err := engine.GitCmd(r.ctx, gd, r.t.Dir, "ls-files", "-z", "--others", "--exclude-standard").Output()
	if err != nil {
		return nil, fmt.Errorf("git ls-files: %w", err)
	}
	cands := gen.Candidates(r.t.Truth, strings.Split(string(out), "\x00"))
	turn, err := gen.PlanTurn(r.t.Name, r.t.Dir, r.t.Truth, cands, r.cfg.TurnSeed)
	if err != nil {
		return nil, err
	}
	r.tr.Turn = map[string]any{"modified": turn.Modified, "created": turn.Created, "deleted": turn.Deleted, "candidates": len(cands)}
	return turn, nil
}

// turnCycle is one engine's repetition of the turn cycle.
func (r *treeRun) turnCycle(e engine.Engine, rep int, turn *gen.Turn) error {
	r.prep(true)
	op, err := e.Capture(r.ctx, engine.PhaseBefore, rep)
	r.noteRSS(e, op)
	if err != nil {
		r.record("turn", e, rep, op, fmt.Errorf("before-state capture: %w", err))
		return nil
	}
	if err := turn.Apply(r.t.Dir); err != nil {
		return fmt.Errorf("apply turn: %w", err)
	}
	r.prep(true)
	op, err = e.Capture(r.ctx, engine.PhaseTurn, rep)
	s := r.record("turn", e, rep, op, err)
	if err != nil {
		return r.restoreTree(turn)
	}
	r.prep(true)
	op, err = e.Undo(r.ctx, rep)
	u := r.record("undo", e, rep, op, err)
	vstart := time.Now()
	v, verr := truth.Verify(r.t.Dir, r.t.Truth, r.cfg.FullVerify)
	u.VerifySeconds = time.Since(vstart).Seconds()
	switch {
	case verr != nil:
		return fmt.Errorf("verify: %w", verr)
	case v.Count == 0:
		u.Verify = "ok"
	default:
		u.Verify = fmt.Sprintf("%d paths differ: %s", v.Count, strings.Join(v.Mismatches[:min(8, len(v.Mismatches))], "; "))
		u.OK = false
		Logf("%s undo %s rep %d: TREE DIFFERS after undo: %s", r.t.Name, e.Name(), rep, u.Verify)
		if err := r.restoreTree(turn); err != nil {
			return err
		}
	}
	Logf("%s turn %s rep %d: capture %.3fs, undo %.3fs, verify %s (%.1fs, %d re-read)", r.t.Name, e.Name(), rep, s.Seconds, u.Seconds, u.Verify, u.VerifySeconds, v.Rehashed)
	return nil
}

// restoreTree puts the tree back after an engine failed to.
func (r *treeRun) restoreTree(turn *gen.Turn) error {
	if err := turn.Reset(r.t.Dir); err != nil {
		return fmt.Errorf("reset turn: %w", err)
	}
	if err := truth.Repair(r.t.Dir, r.t.Truth, r.t.Source); err != nil {
		return fmt.Errorf("repair tree: %w", err)
	}
	return nil
}
