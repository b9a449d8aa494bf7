package turnback

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/turnback/turnback/restore"
)

// unfinished wraps an error from a restore past its commit point.
func unfinished(err error) error {
	if err == nil || !errors.Is(err, restore.ErrUnfinished) {
		return err
	}
	var ue *UnfinishedError
	if errors.As(err, &ue) {
		return err
	}
	return &UnfinishedError{Err: err}
}

// RecoverResult reports Recover.
type RecoverResult struct {
	// Found: there was an interrupted operation.
	Found bool
	// RolledBack: it was rolled back (else finished).
	RolledBack bool
	// Paths the rollback put back (rewritten, removed, recreated), and
	// those it left as they are.
	Restored, Deleted, Created []string
	Kept                       []PathNote
}

// Recover finishes an undo, redo or restore that stopped part way (a
// crash, or a step that failed after its commit point), or, with
// rollback, puts back everything it changed: the work tree returns to
// the state before it and its session records are not written. Paths
// edited since it stopped are left as they are (listed in Kept).
func (r *Repo) Recover(ctx context.Context, rollback bool) (*RecoverResult, error) {
	return r.be.recover(ctx, rollback)
}

func (l localRepo) recover(ctx context.Context, rollback bool) (*RecoverResult, error) {
	r := l.r
	if err := r.lockOnly(ctx); err != nil {
		return nil, err
	}
	defer r.unlock()
	root, err := os.OpenRoot(r.workTree)
	if err != nil {
		return nil, fmt.Errorf("turnback: open work tree: %w", err)
	}
	defer root.Close()
	opts := r.restoreOptions(nil)
	out := &RecoverResult{RolledBack: rollback}
	if !rollback {
		found, err := restore.Recover(ctx, root, opts)
		if err != nil {
			r.recover = true
			return nil, unfinished(err)
		}
		r.recover = false
		out.Found = found || r.recovered
		r.recovered = false
		return out, nil
	}
	opts.Hook = r.hook
	res, found, err := restore.Rollback(ctx, root, opts)
	if err != nil {
		r.recover = true
		return nil, unfinished(err)
	}
	r.recover = false
	if !found && r.recovered {
		// Finished when the store was opened: nothing left to roll back.
		out.Found, out.RolledBack = true, false
	} else {
		out.Found = found
	}
	r.recovered = false
	if res != nil {
		out.Restored, out.Deleted, out.Created = res.Restored, res.Deleted, res.Created
		for _, k := range res.Kept {
			out.Kept = append(out.Kept, PathNote{Path: k.Path, Reason: k.Reason})
		}
	}
	return out, nil
}
