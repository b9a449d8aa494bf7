package turnback

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/internal/storedir"
)

// RepairResult reports Repair: what was rebuilt (nil Store when the
// database was not damaged) and what a verify of the result found.
type RepairResult struct {
	Store *cas.RepairResult `json:"store,omitempty"`
	Log   *cas.LogSalvage   `json:"log,omitempty"`  // a damaged write log salvaged
	Keys  []KeyRepair       `json:"keys,omitempty"` // records whose keys were damaged
	// Healed: damaged stored content stored again from the folder.
	Healed []HealedPath `json:"healed,omitempty"`
	// Served: a watch daemon served the store, so damaged content was
	// not stored again from the folder (nor damaged keys mended).
	Served bool          `json:"served,omitempty"`
	Verify *VerifyResult `json:"verify"`
}

// Repair rebuilds the database of workTree's store when its Badger
// metadata is missing or damaged (see cas.Repair: nothing is deleted,
// the damaged database is kept in damaged-<time>/ in the store), keeps
// every frame of a damaged write log that checks out (moving the log
// aside, see Options.Salvage), stores again or drops each snapshot or
// checkpoint record whose key was damaged (see KeyRepair), then
// verifies everything it recorded. Stored content found damaged is
// stored again from the folder where a file still holds exactly it
// (Healed), and verified again. The error wraps ErrVerify when content
// is still damaged or missing after all that (the result says which
// snapshots and paths).
func Repair(ctx context.Context, workTree string, opts Options) (*RepairResult, error) {
	wt, err := storedir.Canonical(workTree)
	if err != nil {
		return nil, err
	}
	storeDir, err := storedir.DirOf(wt, opts.Store)
	if err != nil {
		return nil, err
	}
	state, _, err := storedir.Inspect(ctx, storeDir)
	if errors.Is(err, cas.ErrDamaged) {
		// An earlier turnback's store, recognised by its note, whose
		// database is what needs the repair.
		if _, ok := storedir.RecordedWorkTree(storeDir); ok {
			err, state = nil, storedir.Legacy
		}
	}
	if err != nil {
		return nil, err
	}
	if state == storedir.Absent {
		return nil, fmt.Errorf("turnback: no store at %s: nothing to repair", storeDir)
	}
	out := &RepairResult{}
	if out.Store, err = cas.Repair(ctx, filepath.Join(storeDir, "db")); err != nil {
		return out, fmt.Errorf("turnback: repair %s: %w", storeDir, err)
	}
	opts.Store, opts.Salvage, opts.Access = storeDir, true, AccessWrite
	r, err := Open(ctx, wt, opts)
	if err != nil {
		return out, err
	}
	defer r.Close()
	if out.Log = r.Salvaged(); out.Log != nil {
		// Content the lost frames held that the folder still holds is
		// stored again; verify then names only what is gone.
		if err := r.recapture(ctx); err != nil {
			out.Log.Recapture = err.Error()
		}
	}
	if r.Served() {
		out.Served = true
		out.Verify, err = r.Verify(ctx)
		return out, err
	}
	if out.Keys, err = r.repairKeys(ctx); err != nil {
		return out, err
	}
	damaged := &damagedContent{}
	out.Verify, err = r.verify(ctx, damaged)
	if !errors.Is(err, ErrVerify) {
		return out, err
	}
	healed, herr := r.healFromFolder(ctx, damaged)
	if out.Healed = healed; herr != nil {
		return out, herr
	}
	if len(healed) == 0 {
		return out, err
	}
	out.Verify, err = r.verify(ctx, nil)
	return out, err
}
