package turnback

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/turnback/turnback/internal/storedir"
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

// ErrNothingToRollBack: Recover was asked to roll back an interrupted
// operation that an earlier operation of this process (a watch daemon)
// had finished already.
var ErrNothingToRollBack = errors.New("turnback: nothing to roll back: the interrupted undo, redo or restore was finished by an earlier command; undo, redo or restore reverse it like any other")

// errFinishedNotRolledBack: the interrupted operation had begun to
// record its result, so Recover finished it rather than roll it back.
var errFinishedNotRolledBack = finishedError("turnback: nothing to roll back: the interrupted undo, redo or restore had recorded its result, so it was finished; undo, redo or restore reverse it like any other")

type finishedError string

func (e finishedError) Error() string        { return string(e) }
func (e finishedError) Is(target error) bool { return target == ErrNothingToRollBack }

// Recover finishes an undo, redo or restore that stopped part way (a
// crash, or a step that failed after its commit point), or, with
// rollback, puts back everything it changed: the work tree returns to
// the state before it and its session records are not written. Paths
// edited since it stopped are left as they are (listed in Kept).
// Rollback works whether or not the cause of the stop is still there,
// provided no other operation finished the interrupted one first: open
// the store with Options.DeferRecovery for that. If one did (in this
// process), Recover with rollback fails with ErrNothingToRollBack.
func (r *Repo) Recover(ctx context.Context, rollback bool) (*RecoverResult, error) {
	return r.be.Recover(ctx, rollback)
}

func (l localRepo) Recover(ctx context.Context, rollback bool) (*RecoverResult, error) {
	r := l.r
	if err := r.lockOnly(ctx); err != nil {
		return nil, err
	}
	defer r.unlock()
	if storedir.RestorePending(r.storeDir) {
		// As execute: the records are committed after the files changed.
		if err := r.backend.Upgrade(); err != nil {
			return nil, err
		}
	}
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
	if errors.Is(err, restore.ErrCommitted) {
		r.recover, r.recovered = false, false
		return nil, errFinishedNotRolledBack
	}
	if err != nil {
		r.recover = true
		return nil, unfinished(err)
	}
	if !found {
		// No journal: what a restore stopped before its commit point
		// staged goes (rolling it back is just that).
		staged, err := restore.Recover(ctx, root, opts)
		if err != nil {
			r.recover = true
			return nil, unfinished(err)
		}
		if !staged && r.recovered {
			r.recover, r.recovered = false, false
			return nil, ErrNothingToRollBack
		}
		found = staged
	}
	r.recover, r.recovered = false, false
	out.Found = found
	if res != nil {
		out.Restored, out.Deleted, out.Created = res.Restored, res.Deleted, res.Created
		for _, k := range res.Kept {
			out.Kept = append(out.Kept, PathNote{Path: k.Path, Reason: k.Reason})
		}
	}
	return out, nil
}
