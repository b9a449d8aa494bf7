//go:build linux

package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime/pprof"
	"time"

	"github.com/turnback/turnback"
)

// API is turnback through its Go API, in process (engine api):
// turnback.Open, Repo.Snap / End / Undo, Close; Open and Close are part
// of every operation unless the Repo is kept open.
type API struct {
	tree, store string
	keepOpen    bool
	repo        *turnback.Repo
	profDir     string
	memProfDir  string
	treeName    string
}

// NewAPI is the api engine. keepOpen keeps the Repo open between
// operations; profDir and memProfDir, when not empty, receive a CPU
// profile and the peak heap profile of every measured operation.
func NewAPI(keepOpen bool, profDir, memProfDir string) *API {
	return &API{keepOpen: keepOpen, profDir: profDir, memProfDir: memProfDir}
}

func (e *API) Name() string              { return "turnback-api" }
func (e *API) Available() (bool, string) { return true, "" }
func (e *API) Setup(name, dir, work string) error {
	e.tree, e.store, e.treeName = dir, filepath.Join(work, "store"), name
	return nil
}
func (e *API) StoreDir() string { return e.store }
func (e *API) Fresh() error {
	if err := e.Close(); err != nil {
		return err
	}
	return os.RemoveAll(e.store)
}
func (e *API) Close() error {
	if e.repo == nil {
		return nil
	}
	err := e.repo.Close()
	e.repo = nil
	return err
}

// startProfile starts a CPU profile of the operation label (nil: none).
func (e *API) startProfile(label string) *os.File {
	if e.profDir == "" || label == "" {
		return nil
	}
	f, err := os.Create(filepath.Join(e.profDir, Sanitize(fmt.Sprintf("%s-%s.pprof", e.treeName, label))))
	if err == nil && pprof.StartCPUProfile(f) == nil {
		return f
	}
	if f != nil {
		f.Close()
	}
	return nil
}

// with runs fn on an open repo as one measured operation: Open and Close
// are included unless the engine keeps the repo open.
func (e *API) with(ctx context.Context, label string, fn func(r *turnback.Repo) (map[string]any, error)) (Op, error) {
	prof := e.startProfile(label)
	var mem *heapPeak
	if e.memProfDir != "" && label != "" {
		mem = startHeapPeak()
	}
	resetHWM()
	rss0 := statusKB("/proc/self/status", "VmRSS")
	cpu0, busy0 := selfCPU(), cpuStat()
	start := time.Now()
	info, err := e.call(ctx, fn)
	d := time.Since(start)
	own := selfCPU() - cpu0
	if prof != nil {
		pprof.StopCPUProfile()
		prof.Close()
	}
	op := Op{Dur: d, CPU: own, Foreign: foreignShare(cpuStat()-busy0, own, d), Info: info}
	// The harness's own memory is included: rss_before_kb is the baseline.
	mergeInfo(&op, map[string]any{"process_hwm_kb": statusKB("/proc/self/status", "VmHWM"), "rss_before_kb": rss0})
	if mem != nil {
		name := filepath.Join(e.memProfDir, Sanitize(fmt.Sprintf("%s-%s.heap.pprof", e.treeName, label)))
		mergeInfo(&op, map[string]any{"heap_inuse_peak_bytes": mem.stop(name)})
	}
	return op, err
}

// call opens the repo if need be, runs fn and closes it unless kept open.
func (e *API) call(ctx context.Context, fn func(r *turnback.Repo) (map[string]any, error)) (map[string]any, error) {
	if e.repo == nil {
		r, err := turnback.Open(ctx, e.tree, turnback.Options{Store: e.store})
		if err != nil {
			return nil, err
		}
		e.repo = r
	}
	info, err := fn(e.repo)
	if !e.keepOpen {
		if cerr := e.Close(); err == nil {
			err = cerr
		}
	}
	return info, err
}

func snapInfo(res *turnback.SnapResult) map[string]any {
	data, _ := json.Marshal(res.Stats)
	var st map[string]any
	json.Unmarshal(data, &st)
	info := tbStats(st)
	info["snapshot"] = res.Snapshot.String()
	return info
}

func (e *API) Capture(ctx context.Context, phase string, rep int) (Op, error) {
	label := fmt.Sprintf("%s-r%d", phase, rep)
	if phase == PhaseBefore || rep < 0 {
		label = "" // setup, not measured
	}
	return e.with(ctx, label, func(r *turnback.Repo) (map[string]any, error) {
		if phase == PhaseTurn {
			res, err := r.End(ctx)
			if err != nil {
				return nil, err
			}
			if res.NoOpenTurn || res.Dropped {
				return nil, fmt.Errorf("turnback End: no turn recorded (no open turn: %v, dropped: %v)", res.NoOpenTurn, res.Dropped)
			}
			return snapInfo(res), nil
		}
		res, err := r.Snap(ctx, "bench "+phase)
		if err != nil {
			return nil, err
		}
		return snapInfo(res), nil
	})
}

func (e *API) Undo(ctx context.Context, rep int) (Op, error) {
	return e.with(ctx, fmt.Sprintf("undo-r%d", rep), func(r *turnback.Repo) (map[string]any, error) {
		res, err := r.Undo(ctx, 1, turnback.UndoOptions{})
		if err != nil {
			return nil, err
		}
		if res.Turns != 1 {
			return nil, fmt.Errorf("turnback Undo undid %d turns, want 1", res.Turns)
		}
		return undoInfo(res.Turns, len(res.Restored), len(res.Deleted), len(res.Created), len(res.NotRestorable)), nil
	})
}
