package turnback

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/manifest"
	"github.com/turnback/turnback/restore"
)

// undoGroup is one undo on a session's redo stack.
type undoGroup struct {
	Turns      []int  `json:"turns"`      // undone turns still to redo, oldest first
	Checkpoint string `json:"checkpoint"` // the state the undo replaced
	Expected   string `json:"expected"`   // the state the last undo or redo left
}

// Undo closes the open turn at the current state and reverts the last n
// turns of the session: every path they changed goes back to its content
// before the earliest of them. Paths changed outside the turns since make
// it return a *ConflictError and change nothing, unless force is set.
func (r *Repo) Undo(ctx context.Context, n int, force bool) (*RestoreResult, error) {
	if r.remote != nil {
		return r.remote.undo(ctx, n, force)
	}
	if n < 1 {
		return nil, fmt.Errorf("turnback: undo: count must be at least 1, got %d", n)
	}
	if err := r.lock(ctx); err != nil {
		return nil, err
	}
	defer r.unlock()
	snap, err := r.capture(ctx)
	if err != nil {
		return nil, err
	}
	now := snap.Root
	sess, err := r.loadSession(ctx, r.session)
	if err != nil {
		return nil, err
	}
	closed, _, writes, deletes, err := r.closeOpen(ctx, sess, now, "undo")
	if err != nil {
		return nil, err
	}
	if len(sess.Turns) == 0 {
		if err := r.commit(ctx, append(writes, sessionEntry(sess)), deletes); err != nil {
			return nil, err
		}
		return &RestoreResult{Nothing: true}, nil
	}
	n = min(n, len(sess.Turns))
	nums := sess.Turns[len(sess.Turns)-n:]
	turns := make([]*Turn, 0, n)
	for _, num := range nums {
		if closed != nil && closed.N == num {
			turns = append(turns, closed)
			continue
		}
		t, err := r.loadTurn(ctx, r.session, num)
		if err != nil {
			return nil, err
		}
		turns = append(turns, t)
	}
	loader := manifest.NewCachingLoader(manifest.NewStoreLoader(r.store))
	left := map[string]*manifest.Entry{} // what the newest turn touching a path left there
	// perTurn: the paths each turn changed.
	perTurn := make([][]string, len(turns))
	for i, t := range turns {
		err := manifest.Diff(ctx, loader, t.Before, t.After, func(c manifest.Change) error {
			left[c.Path] = c.New
			perTurn[i] = append(perTurn[i], c.Path)
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	base := turns[0].Before
	res := &RestoreResult{}
	actions, err := r.actionsFor(ctx, loader, left, now, func(p string) (*manifest.Entry, error) {
		return manifest.Find(ctx, loader, base, p)
	}, res, force)
	if err != nil {
		return nil, err
	}
	actions, ignored, err := r.dropIgnored(ctx, loader, actions, now, base, res)
	if err != nil {
		return nil, err
	}
	if len(res.Conflicts) > 0 && !force {
		return res, &ConflictError{Result: res}
	}
	group := undoGroup{Turns: append([]int(nil), nums...)}
	sess.Turns = sess.Turns[:len(sess.Turns)-n]
	notice, err := r.noticeEntry(ctx, "undo", nums, actions)
	if err != nil {
		return nil, err
	}
	out, err := r.execute(ctx, now, actions, res.parents, force, func(cp, result cas.Hash) ([]cas.Entry, [][]byte) {
		group.Checkpoint, group.Expected = cp.String(), result.String()
		sess.Redo = append(sess.Redo, group)
		sess.Last = result.String()
		return append(writes, sessionEntry(sess), notice), deletes
	})
	if err != nil {
		return conflictResult(res, err)
	}
	out.Turns, out.Conflicts = n, overwritten(out, res.Conflicts)
	out.NotRestorable = append(out.NotRestorable, ignored...)
	if err := r.keepStuckTurns(ctx, out, nums, perTurn); err != nil {
		return nil, err
	}
	return out, nil
}

// actionsFor builds the actions that set every path in left to its
// target, checking each against what was left there for conflicts.
func (r *Repo) actionsFor(ctx context.Context, loader manifest.Loader, left map[string]*manifest.Entry, now cas.Hash,
	target func(string) (*manifest.Entry, error), res *RestoreResult, force bool) ([]restore.Action, error) {
	paths := make([]string, 0, len(left))
	for p := range left {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	var actions []restore.Action
	planned := map[string]bool{}
	for _, p := range paths {
		cur, err := manifest.Find(ctx, loader, now, p)
		if err != nil {
			return nil, err
		}
		want, err := target(p)
		if err != nil {
			return nil, err
		}
		if sameState(cur, want) {
			continue // nothing to change here, so nothing to conflict with
		}
		why, err := r.conflictReason(ctx, p, cur, left[p])
		if err != nil {
			return nil, err
		}
		if why != "" {
			res.Conflicts = append(res.Conflicts, PathNote{Path: p, Reason: why})
		}
		actions = append(actions, restore.Action{Path: p, Old: cur, New: want})
		planned[p] = true
	}
	// A path coming back needs its parent directories: ones the user
	// removed since the turns are recreated as the target state has them.
	var parents []restore.Action
	for _, a := range actions {
		if a.Old != nil || a.New == nil {
			continue
		}
		q := ""
		names := strings.Split(a.Path, "/")
		for _, name := range names[:len(names)-1] {
			q = manifest.JoinPath(q, name)
			if planned[q] {
				continue
			}
			cur, err := manifest.Find(ctx, loader, now, q)
			if err != nil {
				return nil, err
			}
			if cur != nil {
				continue // present (NewPlan blocks what is not a directory)
			}
			want, err := target(q)
			if err != nil {
				return nil, err
			}
			if want == nil || want.Kind != manifest.KindDir {
				break
			}
			parents = append(parents, restore.Action{Path: q, New: want})
			planned[q] = true
			if res.parents == nil {
				res.parents = map[string]bool{}
			}
			res.parents[q] = true
		}
	}
	return append(actions, parents...), nil
}
