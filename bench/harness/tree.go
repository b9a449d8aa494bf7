//go:build linux

package harness

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/turnback/turnback/bench/engine"
	"github.com/turnback/turnback/bench/report"
	"github.com/turnback/turnback/bench/trees"
)

// treeRun is the run of every selected scenario on one tree.
type treeRun struct {
	ctx     context.Context
	cfg     *report.Config
	t       *trees.Tree
	engines []engine.Engine
	res     *report.Results
	tr      *report.TreeResult
	work    string
	live    map[string]bool // engines with a usable store
	total   int             // repetitions, warm-ups included
}

// runTree runs every selected scenario on one tree, engines alternating
// run by run.
func runTree(ctx context.Context, cfg *report.Config, t *trees.Tree, engines []engine.Engine, res *report.Results, tr *report.TreeResult) error {
	workRoot := cfg.WorkDir
	if workRoot == "" {
		workRoot = filepath.Join(cfg.CacheDir, "work")
	}
	r := &treeRun{ctx: ctx, cfg: cfg, t: t, engines: engines, res: res, tr: tr, work: filepath.Join(workRoot, engine.Sanitize(t.Name)),
		live: map[string]bool{}, total: cfg.Warmup + cfg.Reps}
	if err := os.RemoveAll(r.work); err != nil {
		return err
	}
	if !cfg.KeepStores {
		defer os.RemoveAll(r.work)
	}
	defer r.closeEngines()
	for _, e := range engines {
		if err := e.Setup(t.Name, t.Dir, filepath.Join(r.work, e.Name())); err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Join(r.work, e.Name()), 0o755); err != nil {
			return err
		}
		r.live[e.Name()] = true
	}
	// Read every file once (untimed) so that the first measured capture
	// does not pay for a cold page cache when there is no warm-up.
	start := time.Now()
	if err := prewarm(t.Dir); err != nil {
		return err
	}
	Logf("%s: page cache warmed in %.1fs", t.Name, time.Since(start).Seconds())
	for _, step := range []func() error{r.cold, r.noChange, r.turnAndUndo} {
		if err := step(); err != nil {
			return err
		}
	}
	if cfg.Scenarios["size"] {
		r.storeSizes()
	}
	// Last: it replaces every store, after their sizes were read.
	if err := r.backToBack(); err != nil {
		return err
	}
	if err := r.firstCapturesScenario(); err != nil {
		return err
	}
	return t.Save()
}

// closeEngines closes every engine (in reverse order) and then records
// the daemons' counts and peak RSS, read before they were stopped.
func (r *treeRun) closeEngines() {
	for i := len(r.engines) - 1; i >= 0; i-- {
		r.engines[i].Close()
	}
	for _, e := range r.engines {
		d, ok := e.(*engine.Daemon)
		if !ok {
			continue
		}
		d.Close()
		c := d.Result()
		if r.tr.Daemons == nil {
			r.tr.Daemons = map[string]*report.DaemonCounts{}
		}
		r.tr.Daemons[d.Name()] = c
		if !d.Auto() {
			// The fields of earlier results, kept.
			r.tr.DaemonPeakRSSKB = c.PeakRSSKB
			r.tr.Daemon = c
		}
	}
}

// sample makes the sample of one operation of engine e.
func (r *treeRun) sample(scenario string, e engine.Engine, rep int, op engine.Op, err error) *report.Sample {
	s := &report.Sample{Tree: r.t.Name, TreeFiles: r.t.Files, Scenario: scenario, Engine: e.Name(), Rep: rep - r.cfg.Warmup, Warmup: rep < r.cfg.Warmup,
		Seconds: op.Dur.Seconds(), MaxRSSKB: op.MaxRSSKB, CPUSeconds: op.CPU.Seconds(), ForeignCPU: op.Foreign, Procs: op.Procs, Info: op.Info, OK: err == nil}
	r.noteRSS(e, op)
	return s
}

// record adds the sample of a measured operation to the results.
func (r *treeRun) record(scenario string, e engine.Engine, rep int, op engine.Op, err error) *report.Sample {
	s := r.sample(scenario, e, rep, op, err)
	if err != nil {
		s.Error = err.Error()
		Logf("%s %s %s rep %d: FAILED: %v", r.t.Name, scenario, e.Name(), rep, err)
	}
	r.res.Samples = append(r.res.Samples, s)
	return s
}

// noteRSS notes the peak RSS of the turnback CLI processes (the clients;
// the daemons' peak is read from /proc by their engines).
func (r *treeRun) noteRSS(e engine.Engine, op engine.Op) {
	switch e.Name() {
	case "turnback-cli", "turnback-cli-nowatch", "turnback-daemon":
		r.tr.CLIPeakRSSKB = max(r.tr.CLIPeakRSSKB, op.MaxRSSKB)
	}
}

// repeat calls fn for every repetition (warm-ups first) and, within it,
// every engine in turn (with live, only those with a usable store),
// until fn fails or the run is interrupted.
func (r *treeRun) repeat(live bool, fn func(e engine.Engine, rep int) error) error {
	for rep := 0; rep < r.total; rep++ {
		for _, e := range r.engines {
			if r.ctx.Err() != nil {
				return r.ctx.Err()
			}
			if live && !r.live[e.Name()] {
				continue
			}
			if err := fn(e, rep); err != nil {
				return err
			}
		}
	}
	return nil
}

// prep flushes dirty pages (unless told not to) and, for the turn's
// steps, waits for the settle time.
func (r *treeRun) prep(settle bool) {
	if r.cfg.Sync {
		syscall.Sync()
	}
	if settle {
		time.Sleep(r.cfg.Settle)
	}
}

// step ends a scenario: its time is noted and the results so far are
// written, marked partial.
func (r *treeRun) step(name string, start time.Time) {
	r.tr.Steps[name] += time.Since(start).Seconds()
	Logf("%s: %s done in %.1fs", r.t.Name, name, time.Since(start).Seconds())
	r.res.Finished = time.Now().UTC()
	if _, err := report.Write(r.cfg.OutDir, r.res, true); err != nil {
		Logf("saving partial results: %v", err)
	}
}

// cold is the cold capture: a fresh empty store per repetition. Without
// the scenario each engine still makes one untimed first capture.
func (r *treeRun) cold() error {
	start := time.Now()
	if !r.cfg.Scenarios["cold"] {
		if !r.steady() {
			return nil // only b2b or first: they make their own stores
		}
		return r.firstCaptures()
	}
	err := r.repeat(false, func(e engine.Engine, rep int) error {
		if err := e.Fresh(); err != nil {
			return err
		}
		if r.cfg.Rewarm {
			start := time.Now()
			if err := dropPageCache(); err != nil {
				Logf("%s: page cache not dropped: %v", r.t.Name, err)
			}
			if err := prewarm(r.t.Dir); err != nil {
				return err
			}
			Logf("%s: page cache dropped and warmed again in %.1fs", r.t.Name, time.Since(start).Seconds())
		}
		r.prep(false)
		op, err := e.Capture(r.ctx, engine.PhaseCold, rep)
		s := r.record("cold", e, rep, op, err)
		Logf("%s cold %s rep %d: %.3fs", r.t.Name, e.Name(), rep, s.Seconds)
		return nil
	})
	if err != nil {
		return err
	}
	// An engine whose last cold capture failed has no usable store.
	for _, s := range r.res.Samples {
		if s.Tree == r.t.Name && s.Scenario == "cold" && s.Rep == r.cfg.Reps-1 && !s.OK {
			r.live[s.Engine] = false
		}
	}
	r.step("cold", start)
	r.countGitFiles()
	return nil
}

// steady reports whether a scenario that needs the engines' stores of
// the tree runs (any but b2b and first).
func (r *treeRun) steady() bool {
	for _, s := range report.Scenarios {
		if r.cfg.Scenarios[s] {
			return true
		}
	}
	return false
}

// firstCaptures makes each engine's untimed first capture, when the cold
// scenario does not run.
func (r *treeRun) firstCaptures() error {
	start := time.Now()
	for _, e := range r.engines {
		if err := e.Fresh(); err != nil {
			return err
		}
		op, err := e.Capture(r.ctx, engine.PhaseCold, -1)
		// Not a measured sample, but the daemon's start-up time is
		// worth reporting.
		if r.tr.FirstCapture == nil {
			r.tr.FirstCapture = map[string]*report.Sample{}
		}
		s := r.sample("cold", e, -1, op, err)
		s.Rep, s.Warmup = -1, true
		r.tr.FirstCapture[e.Name()] = s
		Logf("%s first capture (untimed setup) %s: %.1fs", r.t.Name, e.Name(), op.Dur.Seconds())
		if err != nil {
			return fmt.Errorf("%s: first capture: %w", e.Name(), err)
		}
	}
	r.step("cold", start)
	r.countGitFiles()
	return nil
}

// countGitFiles notes how many paths the shadow git index holds.
func (r *treeRun) countGitFiles() {
	for _, e := range r.engines {
		if g, ok := e.(*engine.Git); ok && r.live[e.Name()] {
			r.tr.GitFiles = g.FileCount(r.ctx)
		}
	}
}

// noChange is the no-change capture.
func (r *treeRun) noChange() error {
	if !r.cfg.Scenarios["nochange"] {
		return nil
	}
	start := time.Now()
	err := r.repeat(true, func(e engine.Engine, rep int) error {
		r.prep(false)
		op, err := e.Capture(r.ctx, engine.PhaseNoChange, rep)
		s := r.record("nochange", e, rep, op, err)
		if s.OK && e.Name() == "turnback-cli" {
			if v, ok := op.Info["files"].(float64); ok {
				r.tr.TurnbackFiles = int(v)
			}
		}
		Logf("%s nochange %s rep %d: %.3fs", r.t.Name, e.Name(), rep, s.Seconds)
		return nil
	})
	if err != nil {
		return err
	}
	r.step("nochange", start)
	return nil
}

// storeSizes records each engine's store disk use after the sequence.
func (r *treeRun) storeSizes() {
	if r.cfg.Sync {
		syscall.Sync()
	}
	for _, e := range r.engines {
		if !r.live[e.Name()] {
			continue
		}
		e.Close()
		n, err := diskUsage(e.StoreDir())
		s := &report.Sample{Tree: r.t.Name, TreeFiles: r.t.Files, Scenario: "size", Engine: e.Name(), Bytes: n, OK: err == nil}
		if err != nil {
			s.Error = err.Error()
		}
		r.res.Samples = append(r.res.Samples, s)
		Logf("%s size %s: %.1f MB", r.t.Name, e.Name(), float64(n)/1e6)
	}
}
