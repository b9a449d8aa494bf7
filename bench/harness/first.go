//go:build linux

package harness

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/turnback/turnback/bench/engine"
	"github.com/turnback/turnback/bench/gen"
	"github.com/turnback/turnback/bench/report"
	"github.com/turnback/turnback/bench/truth"
)

// firstCapturesScenario is the first-captures scenario ("first"): per
// repetition and engine, a fresh `cp -a` copy of the tree's origin, then
// at once the cold capture, a no-change capture, the turn applied, the
// turn capture and its undo, each timed. Only engines that start no
// daemon run it (cli-nowatch and shadow git), one after the other, so
// each repetition is a pair. The copy is what a user has after cloning
// or unpacking: for the go tree it is copied from GOROOT/src, whose
// whole-second mtimes are kept.
func (r *treeRun) firstCapturesScenario() error {
	if !r.cfg.Scenarios["first"] {
		return nil
	}
	start := time.Now()
	var engines []engine.BackToBack
	for _, e := range r.engines {
		b, ok := e.(engine.BackToBack)
		_, nowatch := e.(*engine.NoWatchCLI)
		_, git := e.(*engine.Git)
		if !ok || !(nowatch || git) {
			r.res.Skipped = appendOnce(r.res.Skipped, fmt.Sprintf("engine %s does not run the first-captures scenario (no daemon: cli-nowatch and git only)", e.Name()))
			continue
		}
		engines = append(engines, b)
	}
	turn, err := r.planTurn()
	if err != nil {
		return err
	}
	base := filepath.Join(r.work, "first")
	copyDir := filepath.Join(base, "tree")
	defer func() {
		os.RemoveAll(base)
		for _, e := range engines {
			e.Setup(r.t.Name, r.t.Dir, filepath.Join(r.work, e.Name()))
		}
	}()
	for rep := 0; rep < r.total; rep++ {
		for _, e := range engines {
			if r.ctx.Err() != nil {
				return r.ctx.Err()
			}
			if err := r.firstRun(e, rep, turn, copyDir); err != nil {
				return err
			}
		}
	}
	r.step("first", start)
	return nil
}

// firstSource is the folder the first-captures scenario copies: the go
// tree's origin (GOROOT/src), else the tree itself.
func (r *treeRun) firstSource() string {
	if g, ok := r.t.Info["goroot"].(string); ok && r.t.Kind == "go" {
		return filepath.Join(g, "src")
	}
	return r.t.Dir
}

// firstRun is one engine's repetition of the first-captures scenario.
func (r *treeRun) firstRun(e engine.BackToBack, rep int, turn *gen.Turn, copyDir string) error {
	if err := os.RemoveAll(filepath.Dir(copyDir)); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(copyDir), 0o755); err != nil {
		return err
	}
	if out, err := exec.CommandContext(r.ctx, "cp", "-a", r.firstSource(), copyDir).CombinedOutput(); err != nil {
		return fmt.Errorf("cp -a: %v: %s", err, out)
	}
	work := filepath.Join(filepath.Dir(copyDir), e.Name())
	if err := os.MkdirAll(work, 0o755); err != nil {
		return err
	}
	if err := e.Setup(r.t.Name, copyDir, work); err != nil {
		return err
	}
	if err := e.Fresh(); err != nil {
		return err
	}
	// The copy's dirty pages are written out, untimed; the racy window
	// of the files just copied is not waited for.
	r.prep(false)
	var line []string
	for _, step := range report.FirstSteps {
		if step.Step == engine.StepTurn {
			if err := turn.Apply(copyDir); err != nil {
				return fmt.Errorf("apply turn: %w", err)
			}
		}
		op, err := e.Step(r.ctx, step.Step)
		s := r.record(step.Scenario, e, rep, op, err)
		line = append(line, fmt.Sprintf("%s %.3fs (cpu %.3fs)", step.Step, s.Seconds, s.CPUSeconds))
		if err != nil {
			// The sequence is broken; the copy is thrown away.
			return nil
		}
	}
	u := r.res.Samples[len(r.res.Samples)-1]
	vstart := time.Now()
	v, verr := truth.Verify(copyDir, r.t.Truth, r.cfg.FullVerify)
	u.VerifySeconds = time.Since(vstart).Seconds()
	switch {
	case verr != nil:
		return fmt.Errorf("verify: %w", verr)
	case v.Count == 0:
		u.Verify = "ok"
	default:
		u.Verify = fmt.Sprintf("%d paths differ: %s", v.Count, strings.Join(v.Mismatches[:min(8, len(v.Mismatches))], "; "))
		u.OK = false
		Logf("%s first undo %s rep %d: TREE DIFFERS after undo: %s", r.t.Name, e.Name(), rep, u.Verify)
	}
	Logf("%s first %s rep %d: %s, verify %s", r.t.Name, e.Name(), rep, strings.Join(line, ", "), u.Verify)
	return nil
}
