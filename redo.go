package turnback

// Redo: re-applying undone turns (restore.go has the execute step that
// Undo, Redo and Restore share).

import (
	"context"
	"errors"
	"fmt"

	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/manifest"
)

// Redo re-applies undone turns one at a time, oldest first. It stops at
// the first conflict (returning a *ConflictError after the turns already
// redone) unless force is set.
func (r *Repo) Redo(ctx context.Context, n int, force bool) (*RestoreResult, error) {
	if r.remote != nil {
		return r.remote.redo(ctx, n, force)
	}
	if n < 1 {
		return nil, fmt.Errorf("turnback: redo: count must be at least 1, got %d", n)
	}
	if err := r.lock(ctx); err != nil {
		return nil, err
	}
	defer r.unlock()
	if err := r.closeForRedo(ctx); err != nil {
		return nil, err
	}
	total := &RestoreResult{}
	for i := 0; i < n; i++ {
		one, err := r.redoOne(ctx, force)
		if err != nil {
			var ce *ConflictError
			if errors.As(err, &ce) {
				total.Conflicts = ce.Result.Conflicts
				return total, &ConflictError{Result: total}
			}
			return nil, err
		}
		if one.Nothing {
			total.Nothing = total.Turns == 0
			break
		}
		total.Turns++
		total.Restored = append(total.Restored, one.Restored...)
		total.Deleted = append(total.Deleted, one.Deleted...)
		total.Created = append(total.Created, one.Created...)
		total.Conflicts = append(total.Conflicts, one.Conflicts...)
		total.NotRestorable = append(total.NotRestorable, one.NotRestorable...)
		if total.Checkpoint.IsZero() {
			total.Checkpoint = one.Checkpoint
		}
		total.Result = one.Result
	}
	return total, nil
}

// closeForRedo closes the session's open turn before a redo, as Undo
// does: a turn that changed the folder clears the redo stack (a new
// timeline: the redo then has nothing to do), one that changed nothing
// is dropped and the redo goes ahead.
func (r *Repo) closeForRedo(ctx context.Context) error {
	sess, err := r.loadSession(ctx, r.session)
	if err != nil {
		return err
	}
	n := len(sess.Turns)
	if len(sess.Redo) == 0 || n == 0 {
		return nil
	}
	if t, err := r.loadTurn(ctx, r.session, sess.Turns[n-1]); err != nil || !t.Open() {
		return err
	}
	snap, err := r.capture(ctx)
	if err != nil {
		return err
	}
	_, _, writes, deletes, err := r.closeOpen(ctx, sess, snap.Root, "redo")
	if err != nil {
		return err
	}
	// The closed turn's after-state is a snapshot like any End's: it can
	// be shown and restored by its id, and it is the session's newest.
	sess.Last = snap.Root.String()
	writes = append(writes, sessionEntry(sess), snapshotEntry(snap.Root, kindSnap, snap.Stats.Files, snap.Stats.Bytes),
		cas.Entry{Key: []byte(keyLatest), Value: []byte(snap.Root.String())})
	return r.commit(ctx, writes, deletes)
}

func (r *Repo) redoOne(ctx context.Context, force bool) (*RestoreResult, error) {
	sess, err := r.loadSession(ctx, r.session)
	if err != nil {
		return nil, err
	}
	if len(sess.Redo) == 0 {
		return &RestoreResult{Nothing: true}, nil
	}
	g := &sess.Redo[len(sess.Redo)-1]
	if len(g.Turns) == 0 {
		return nil, fmt.Errorf("%w: session %s: empty redo entry", cas.ErrCorrupt, r.session)
	}
	t, err := r.loadTurn(ctx, r.session, g.Turns[0])
	if err != nil {
		return nil, err
	}
	var goal cas.Hash
	if len(g.Turns) > 1 {
		next, err := r.loadTurn(ctx, r.session, g.Turns[1])
		if err != nil {
			return nil, err
		}
		goal = next.Before
	} else if goal, err = cas.ParseHash(g.Checkpoint); err != nil {
		return nil, fmt.Errorf("%w: session %s: %v", cas.ErrCorrupt, r.session, err)
	}
	expected, err := cas.ParseHash(g.Expected)
	if err != nil {
		return nil, fmt.Errorf("%w: session %s: %v", cas.ErrCorrupt, r.session, err)
	}
	snap, err := r.capture(ctx)
	if err != nil {
		return nil, err
	}
	loader := manifest.NewCachingLoader(manifest.NewStoreLoader(r.store))
	left := map[string]*manifest.Entry{}
	err = manifest.Diff(ctx, loader, t.Before, t.After, func(c manifest.Change) error {
		e, err := manifest.Find(ctx, loader, expected, c.Path)
		left[c.Path] = e
		return err
	})
	if err != nil {
		return nil, err
	}
	res := &RestoreResult{}
	actions, err := r.actionsFor(ctx, loader, left, snap.Root, func(p string) (*manifest.Entry, error) {
		return manifest.Find(ctx, loader, goal, p)
	}, res, force)
	if err != nil {
		return nil, err
	}
	actions, ignored, err := r.dropIgnored(ctx, loader, actions, snap.Root, goal, res)
	if err != nil {
		return nil, err
	}
	if len(res.Conflicts) > 0 && !force {
		return res, &ConflictError{Result: res}
	}
	notice, err := r.noticeEntry(ctx, "redo", g.Turns[:1], actions)
	if err != nil {
		return nil, err
	}
	out, err := r.execute(ctx, snap.Root, actions, res.parents, force, func(cp, result cas.Hash) ([]cas.Entry, [][]byte) {
		sess.Turns = append(sess.Turns, g.Turns[0])
		g.Turns = g.Turns[1:]
		g.Expected = result.String()
		sess.Last = result.String()
		if len(g.Turns) == 0 {
			sess.Redo = sess.Redo[:len(sess.Redo)-1]
		}
		return []cas.Entry{sessionEntry(sess), notice}, nil
	})
	if err != nil {
		return conflictResult(res, err)
	}
	out.Turns, out.Conflicts = 1, overwritten(out, res.Conflicts)
	out.NotRestorable = append(out.NotRestorable, ignored...)
	return out, nil
}
