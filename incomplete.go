package turnback

import (
	"context"
	"errors"
	"slices"

	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/cas/ref"
	"github.com/turnback/turnback/internal/model"
	"github.com/turnback/turnback/manifest"
	"github.com/turnback/turnback/walker"
)

func addPath(m map[string]bool, p string) map[string]bool {
	if m == nil {
		m = map[string]bool{}
	}
	m[p] = true
	return m
}

// keepStuckTurns applies "a turn whose only change was unrestorable is
// not counted as undone": such turns are not counted in out.Turns, and
// when every undone turn is such a turn (the undo changed nothing), they
// go back from the redo stack to the session's turns, as if the undo had
// not been asked for. nums are the undone turns, perTurn the paths each
// changed.
func (r *Repo) keepStuckTurns(ctx context.Context, out *RestoreResult, nums []int, perTurn [][]string) error {
	if len(model.NoContent(out)) == 0 {
		return nil
	}
	stuck := model.StuckTurns(perTurn, model.NoContent(out))
	out.Turns = len(nums) - stuck
	if stuck < len(nums) {
		return nil
	}
	sess, err := r.loadSession(ctx, r.session)
	if err != nil {
		return err
	}
	if len(sess.Redo) == 0 || !slices.Equal(sess.Redo[len(sess.Redo)-1].Turns, nums) {
		return nil
	}
	sess.Redo = sess.Redo[:len(sess.Redo)-1]
	sess.Turns = append(sess.Turns, nums...)
	return r.commit(ctx, []cas.Entry{model.SessionEntry(sess)}, nil)
}

// keepEmptyPartial: a partial undo that changed nothing (every path not
// restorable) leaves no entry on the redo stack.
func (r *Repo) keepEmptyPartial(ctx context.Context, out *RestoreResult) error {
	if len(out.Restored)+len(out.Deleted)+len(out.Created) > 0 {
		return nil
	}
	sess, err := r.loadSession(ctx, r.session)
	if err != nil {
		return err
	}
	n := len(sess.Redo)
	if n == 0 || !sess.Redo[n-1].IsPartial() || sess.Redo[n-1].Checkpoint != out.Checkpoint.String() {
		return nil
	}
	sess.Redo = sess.Redo[:n-1]
	return r.commit(ctx, []cas.Entry{model.SessionEntry(sess)}, nil)
}

// Uncaptured is a path a capture noted without its content
// (Stats.Uncaptured, Stats.Unprotected).
type Uncaptured = walker.Uncaptured

// UnprotectedChanges returns, per turn number, the paths each closed
// turn of turns deleted or changed whose content before the turn was
// over the size limit and is held by no usable reference, and the new
// directories it made that were left uncaptured (their paths end in
// "/"): the changes an undo cannot revert.
func (r *Repo) UnprotectedChanges(ctx context.Context, turns []*Turn) (map[int][]string, error) {
	return r.be.UnprotectedChanges(ctx, turns)
}

func (l localRepo) UnprotectedChanges(ctx context.Context, turns []*Turn) (map[int][]string, error) {
	r := l.r
	if err := r.lock(ctx); err != nil {
		return nil, err
	}
	defer r.unlock()
	out := map[int][]string{}
	loader := manifest.NewCachingLoader(r.loader())
	known := map[cas.Hash]bool{}
	f := ref.NewFinder()
	for _, t := range turns {
		if t.Open() {
			continue
		}
		err := manifest.Diff(ctx, loader, t.Before, t.After, func(c manifest.Change) error {
			if n := c.New; n != nil && n.Kind == manifest.KindDir && n.Uncaptured && n.Files > 0 && (c.Old == nil || !c.Old.Uncaptured) {
				out[t.N] = append(out[t.N], c.Path+"/")
				return nil
			}
			o := c.Old
			if o == nil || o.Kind != manifest.KindFile || !o.Uncaptured {
				return nil
			}
			ok, seen := known[o.Hash]
			if !seen && !o.Hash.IsZero() {
				var err error
				if ok, err = r.hasRef(ctx, f, o.Hash); err != nil {
					return err
				}
				known[o.Hash] = ok
			}
			if !ok {
				out[t.N] = append(out[t.N], c.Path)
			}
			return nil
		})
		if errors.Is(err, cas.ErrNotFound) || errors.Is(err, cas.ErrCorrupt) {
			// A tree the store lost (a damaged write log): verify names
			// it; a listing goes on with the other turns.
			continue
		}
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}
