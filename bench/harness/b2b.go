//go:build linux

package harness

import (
	"fmt"
	"strings"
	"time"

	"github.com/turnback/turnback/bench/engine"
	"github.com/turnback/turnback/bench/gen"
	"github.com/turnback/turnback/bench/report"
	"github.com/turnback/turnback/bench/truth"
)

// backToBack is the back-to-back scenario: per repetition and engine, a
// fresh store, then the cold capture, the no-change capture, the turn
// applied, the turn capture and the undo, one right after the other
// (nothing waited for in between: no settle, no sync, no daemon status),
// each step timed on its own; the tree is verified after the undo.
// Engines that are not BackToBack (and the explicit daemon engine) are
// left out, with a note.
func (r *treeRun) backToBack() error {
	if !r.cfg.Scenarios["b2b"] {
		return nil
	}
	start := time.Now()
	var engines []engine.BackToBack
	for _, e := range r.engines {
		b, ok := e.(engine.BackToBack)
		if d, isD := e.(*engine.Daemon); !ok || (isD && !d.Auto()) {
			r.res.Skipped = appendOnce(r.res.Skipped, fmt.Sprintf("engine %s does not run the back-to-back scenario", e.Name()))
			continue
		}
		engines = append(engines, b)
	}
	turn, err := r.planTurn()
	if err != nil {
		return err
	}
	defer func() {
		if v, err := truth.Verify(r.t.Dir, r.t.Truth, false); err == nil && v.Count > 0 {
			turn.Reset(r.t.Dir)
		}
	}()
	for rep := 0; rep < r.total; rep++ {
		for _, e := range engines {
			if r.ctx.Err() != nil {
				return r.ctx.Err()
			}
			if err := r.b2bRun(e, rep, turn); err != nil {
				return err
			}
		}
	}
	r.step("b2b", start)
	return nil
}

func appendOnce(xs []string, s string) []string {
	for _, x := range xs {
		if x == s {
			return xs
		}
	}
	return append(xs, s)
}

// b2bRun is one engine's repetition of the back-to-back scenario.
func (r *treeRun) b2bRun(e engine.BackToBack, rep int, turn *gen.Turn) error {
	if err := e.Fresh(); err != nil {
		return err
	}
	r.prep(false)
	var line []string
	for _, step := range report.B2BSteps {
		if step.Step == engine.StepTurn {
			if err := turn.Apply(r.t.Dir); err != nil {
				return fmt.Errorf("apply turn: %w", err)
			}
		}
		op, err := e.Step(r.ctx, step.Step)
		s := r.record(step.Scenario, e, rep, op, err)
		line = append(line, fmt.Sprintf("%s %.3fs", step.Step, s.Seconds))
		if err == nil {
			continue
		}
		// The sequence is broken: the rest is not measured.
		if step.Step == engine.StepTurn || step.Step == engine.StepUndo {
			return r.restoreTree(turn)
		}
		return nil
	}
	u := r.res.Samples[len(r.res.Samples)-1]
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
		Logf("%s b2b undo %s rep %d: TREE DIFFERS after undo: %s", r.t.Name, e.Name(), rep, u.Verify)
		if err := r.restoreTree(turn); err != nil {
			return err
		}
	}
	Logf("%s b2b %s rep %d: %s, verify %s", r.t.Name, e.Name(), rep, strings.Join(line, ", "), u.Verify)
	return nil
}
