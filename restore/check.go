package restore

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/turnback/turnback/manifest"
)

// ErrChanged: a path the restore was to replace or remove no longer held
// what the plan was made from when Apply looked just before its commit
// point (an edit made while the restore ran, or one a watcher did not
// report). Nothing was changed.
var ErrChanged = errors.New("restore: changed while the restore ran")

// ChangedError lists the paths found changed; it wraps ErrChanged.
type ChangedError struct{ Paths []Skipped }

func (e *ChangedError) Error() string {
	names := make([]string, 0, 3)
	for i, p := range e.Paths {
		if i == 3 {
			names = append(names, "...")
			break
		}
		names = append(names, p.Path)
	}
	return fmt.Sprintf("restore: %d paths changed while the restore ran (%s); nothing was changed", len(e.Paths), strings.Join(names, ", "))
}

func (e *ChangedError) Unwrap() error { return ErrChanged }

// check compares every path the plan replaces, removes or creates with
// the plan's Old, from the disk: lstat, and the full content of files
// (never a cached or watched answer). It returns the paths that differ.
func check(ctx context.Context, d *dirs, p *Plan) ([]Skipped, error) {
	var out []Skipped
	for _, a := range p.Actions {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if a.Old != nil && a.New != nil && a.Old.Kind == manifest.KindDir && a.New.Kind == manifest.KindDir {
			// A directory kept as a directory (its mode may change):
			// nothing in it is replaced by this action.
			fi, err := d.lstat(a.Path)
			if err == nil && fi.IsDir() {
				continue
			}
		}
		if a.Old == nil && a.New != nil && a.New.Kind == manifest.KindDir {
			// An existing directory is merged into.
			if fi, err := d.lstat(a.Path); err == nil && fi.IsDir() {
				continue
			}
		}
		if a.Old != nil && a.Old.Kind == manifest.KindFile && a.Old.Hash.IsZero() {
			// Content never hashed (uncaptured): what is found when it is
			// replaced is saved.
			continue
		}
		ok, err := onDisk(ctx, d, a.Path, a.Old)
		if err != nil {
			return nil, fmt.Errorf("restore: check %s: %w", a.Path, err)
		}
		if ok {
			continue
		}
		out = append(out, Skipped{Path: a.Path, Reason: changedReason(d, a.Path, a.Old)})
	}
	return out, nil
}

func changedReason(d *dirs, p string, old *manifest.Entry) string {
	fi, err := d.lstat(p)
	switch {
	case err != nil && errors.Is(err, fs.ErrNotExist):
		return fmt.Sprintf("deleted since (it was a %s)", old.Kind)
	case err != nil:
		return "unreadable: " + err.Error()
	case old == nil:
		return fmt.Sprintf("created since (now a %s)", kindOf(fi.Mode()))
	case !sameKind(fi.Mode(), old.Kind):
		return fmt.Sprintf("replaced since (%s, was %s)", kindOf(fi.Mode()), old.Kind)
	case old.Kind == manifest.KindSymlink:
		return "link target changed since"
	}
	return "modified since"
}

// ErrUnfinished: a restore passed its commit point and could not be
// completed (a step failed: permission refused, I/O error, disk full).
// Its journal stays; every later Recover tries again.
var ErrUnfinished = errors.New("restore: an interrupted restore could not be finished")

// UnfinishedError says which restore, and why.
type UnfinishedError struct {
	ID       string
	Rollback bool // the journal is a rollback's
	Err      error
}

func (e *UnfinishedError) Error() string {
	what := "restore"
	if e.Rollback {
		what = "rollback"
	}
	return fmt.Sprintf("restore: %s %s stopped part way: %v", what, e.ID, e.Err)
}

func (e *UnfinishedError) Unwrap() []error { return []error{ErrUnfinished, e.Err} }
