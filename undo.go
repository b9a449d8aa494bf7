package turnback

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/internal/model"
	"github.com/turnback/turnback/internal/pathstate"
	"github.com/turnback/turnback/internal/treepath"
	"github.com/turnback/turnback/manifest"
	"github.com/turnback/turnback/restore"
)

// undoGroup is one undo on a session's redo stack (model.UndoGroup).
type undoGroup = model.UndoGroup

// Undo closes the open turn at the current state and reverts the last n
// turns of the session: every path they changed goes back to its content
// before the earliest of them. Paths changed outside the turns since make
// it return a *ConflictError and change nothing, unless o.Force is set;
// with o.Merge, a text file both changed is merged instead (see
// UndoOptions). With o.Paths only the paths given are reverted and the
// turns stay on the undo stack; with o.DryRun nothing is changed and the
// result's DryRun says what would be.
func (r *Repo) Undo(ctx context.Context, n int, o UndoOptions) (*RestoreResult, error) {
	return withMoved(r.be.Undo(ctx, n, o))
}

func (r *Repo) undo(ctx context.Context, n int, o UndoOptions) (*RestoreResult, error) {
	if n < 1 {
		return nil, fmt.Errorf("turnback: undo: count must be at least 1, got %d", n)
	}
	if o.Merge != MergeNone && o.Merge != MergeClean && o.Merge != MergeMarkers {
		return nil, fmt.Errorf("turnback: undo: unknown merge mode %q", o.Merge)
	}
	specs := o.Paths
	if o.Dir != "" && len(specs) > 0 {
		var err error
		if specs, err = r.TreePaths(o.Dir, specs); err != nil {
			return nil, err
		}
	}
	specs, err := treepath.Clean(specs)
	if err != nil {
		return nil, err
	}
	partial, force := len(specs) > 0, o.Force
	if err := r.lock(ctx); err != nil {
		return nil, err
	}
	defer r.unlock()
	defer r.shareTrees()()
	if err := r.refusePulled(ctx, "undo"); err != nil {
		return nil, err
	}
	sess, err := r.loadSession(ctx, r.session)
	if err != nil {
		return nil, err
	}
	loader := manifest.NewCachingLoader(r.loader())
	// Without an open turn the turns to undo are known before the
	// capture, which then reads only their paths' directories.
	early, err := r.scopeFirst(ctx, loader, sess, n, specs, o.Paths)
	if err != nil {
		return nil, err
	}
	var snap *captured
	if early != nil {
		snap, err = r.captureScope(ctx, early.paths())
	} else {
		snap, err = r.capture(ctx)
	}
	if err != nil {
		return nil, err
	}
	now := snap.Root
	closed, _, writes, deletes, err := r.closeOpen(ctx, sess, now, "undo")
	if err != nil {
		return nil, err
	}
	afterDropped := sess.Dropped
	sess.Dropped = 0 // said once, by this undo
	nothing := func() (*RestoreResult, error) {
		if o.DryRun {
			return &RestoreResult{Nothing: true, DryRun: &Preview{}}, nil
		}
		if closed == nil { // the session is as stored, or has no record: none is made
			return &RestoreResult{Nothing: true}, nil
		}
		// The closed turn's after-state is a snapshot like any end's:
		// it can be shown and restored by its id, and it is the newest.
		sess.Last = now.String()
		rec, err := r.closedSnapshot(ctx, snap)
		if err != nil {
			return nil, err
		}
		writes = append(writes, rec)
		writes = append(writes, r.latestEntries(now, now)...)
		if err := r.commit(ctx, append(writes, model.SessionEntry(sess)), deletes); err != nil {
			return nil, err
		}
		return &RestoreResult{Nothing: true}, nil
	}
	if len(sess.Turns) == 0 {
		return nothing()
	}
	n = min(n, len(sess.Turns))
	sc := early
	if sc == nil {
		if sc, err = r.scopeOf(ctx, loader, sess.Turns[len(sess.Turns)-n:], closed, specs, o.Paths); err != nil {
			return nil, err
		}
	}
	nums, turns, left, perTurn := sc.nums, sc.turns, sc.left, sc.perTurn
	if err := r.heldAsPulled(ctx, loader, now, left, sc.pulled); err != nil {
		return nil, err
	}
	specs = treepath.SortedUnique(specs)
	base := turns[0].Before
	foreignBase, err := r.foreignState(ctx, base)
	if err != nil {
		return nil, err
	}
	res := &RestoreResult{}
	actions, err := r.actionsFor(ctx, loader, left, now, func(p string) (*manifest.Entry, error) {
		e, err := manifest.Find(ctx, loader, base, p)
		if sc.foreign[turns[0].N] || foreignBase {
			e = pathstate.ForeignTarget(e) // a pulled state: the path keeps its owner here
		}
		return e, err
	}, res, force)
	if err != nil {
		return nil, err
	}
	actions, ignored, err := r.dropIgnored(ctx, loader, actions, now, base, res)
	if err != nil {
		return nil, err
	}
	actions, merged, err := r.mergeConflicts(ctx, actions, left, res, o.Merge, fmt.Sprintf("before turn %d", nums[0]))
	if err != nil {
		return nil, err
	}
	// After the merge: reverting a path another session's turn changed
	// too would revert that session's work, merged or not.
	if err := r.overlapConflicts(ctx, loader, turns, left, now, actions, res); err != nil {
		return nil, err
	}
	if partial && len(actions) == 0 && len(res.Conflicts) == 0 {
		return nothing() // the paths already hold what they held before
	}
	if o.DryRun {
		p, noContent, _, err := r.preview(ctx, actions, res, ignored, force)
		if err != nil {
			return nil, err
		}
		if !p.Stopped {
			p.Turns = n
			if !partial {
				p.Turns = n - model.StuckTurns(perTurn, noContent)
			}
			p.Merged, p.Markers = merged.lists(p.Restored)
		}
		if partial {
			p.Paths = specs
		}
		res, err := model.DryResult(p)
		if !p.Stopped {
			res.Moved = model.MovedTurns(turns, perTurn, noContent, partial)
		}
		return res, err
	}
	if len(res.Conflicts) > 0 && !force {
		return res, &ConflictError{Result: res}
	}
	if err := r.storeMerged(ctx, merged); err != nil {
		return nil, err
	}
	group := undoGroup{Turns: append([]int(nil), nums...)}
	if partial {
		group = undoGroup{Partial: append([]int(nil), nums...), Paths: specs}
	} else {
		sess.Turns = sess.Turns[:len(sess.Turns)-n]
	}
	notice, err := r.noticeEntry(ctx, "undo", nums, actions)
	if err != nil {
		return nil, err
	}
	verb := "undo"
	if o.Merge != MergeNone {
		verb = "undo --merge"
	}
	if partial {
		verb += " --path"
	}
	// The checkpoint vouches for the paths the undo may write; one that
	// closed the open turn read everything (its turn's after-state).
	scope := newVouch(sc.paths())
	if closed != nil {
		scope = nil
	}
	out, err := r.executeIn(ctx, model.OpName(verb, nums), scope, now, base, actions, model.Parents(res), force, func(cp, result cas.Hash) ([]cas.Entry, [][]byte, error) {
		group.Checkpoint, group.Expected = cp.String(), result.String()
		sess.Redo = append(sess.Redo, group)
		sess.Last = result.String()
		w := append(writes, model.SessionEntry(sess), notice)
		if closed != nil && cp != now {
			// The checkpoint holds content now lacks (a stored
			// uncaptured file): now, the closed turn's after-state,
			// gets its own record.
			rec, err := r.closedSnapshot(ctx, snap)
			if err != nil {
				return nil, nil, err
			}
			w = append(w, rec)
		}
		return w, deletes, nil
	})
	if err != nil {
		return model.ConflictResult(res, err)
	}
	out.Turns, out.Conflicts = n, model.Overwritten(out, res.Conflicts)
	out.AfterDropped = afterDropped
	out.NotRestorable = append(out.NotRestorable, ignored...)
	out.Merged, out.Markers = merged.lists(out.Restored)
	out.Moved = model.MovedTurns(turns, perTurn, model.NoContent(out), partial)
	if partial {
		out.Paths = specs
		return out, r.keepEmptyPartial(ctx, out)
	}
	if err := r.keepStuckTurns(ctx, out, nums, perTurn); err != nil {
		return nil, err
	}
	return out, nil
}

// undoScope is what an undo of some turns reverts.
type undoScope struct {
	nums    []int
	turns   []*Turn
	left    map[string]*manifest.Entry // what the newest turn touching a path left there
	perTurn [][]string                 // the paths each turn changed (of those given)
	foreign map[int]bool               // turns pull --apply brought in (pull_owners.go)
	pulled  map[string]*manifest.Entry // left, as recorded, where a pulled turn left it
}

// scopeOf loads the turns nums (closed is the one the undo just
// closed, if any) and what they changed, at or below specs if any
// (given: the paths as the caller gave them, for the error naming a
// spec no turn changed: ErrPath).
func (r *Repo) scopeOf(ctx context.Context, loader manifest.Loader, nums []int, closed *Turn, specs, given []string) (*undoScope, error) {
	sc := &undoScope{nums: nums, left: map[string]*manifest.Entry{}, perTurn: make([][]string, len(nums)), pulled: map[string]*manifest.Entry{}}
	for _, num := range nums {
		if closed != nil && closed.N == num {
			sc.turns = append(sc.turns, closed)
			continue
		}
		t, err := r.loadTurn(ctx, r.session, num)
		if err != nil {
			return nil, err
		}
		sc.turns = append(sc.turns, t)
	}
	matched := make([]bool, len(specs))
	foreign, err := r.foreignTurns(ctx, r.session)
	if err != nil {
		return nil, err
	}
	sc.foreign = foreign
	for i, t := range sc.turns {
		if !foreign[t.N] {
			if foreign[t.N], err = r.foreignState(ctx, t.After); err != nil {
				return nil, err
			}
		}
		err := manifest.Diff(ctx, loader, t.Before, t.After, func(c manifest.Change) error {
			hit := len(specs) == 0
			for k, s := range specs {
				if treepath.Under(c.Path, s) {
					matched[k], hit = true, true
				}
			}
			if hit {
				sc.left[c.Path] = c.New
				delete(sc.pulled, c.Path)
				if foreign[t.N] {
					sc.left[c.Path] = pathstate.ForeignTarget(c.New) // another machine's owner: not compared
					sc.pulled[c.Path] = c.New
				}
				sc.perTurn[i] = append(sc.perTurn[i], c.Path)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	for k, ok := range matched {
		if !ok {
			n := len(nums)
			return nil, fmt.Errorf("%w: %q: the last %d turn%s of session %s did not change it", ErrPath, given[k], n, plural(n), r.session)
		}
	}
	return sc, nil
}

// plural is "s" unless n is 1.
func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
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
	hidden := newUncapturedDirs(loader, now)
	for _, p := range paths {
		cur, err := manifest.Find(ctx, loader, now, p)
		if err != nil {
			return nil, err
		}
		want, err := target(p)
		if err != nil {
			return nil, err
		}
		if in, err := hidden.above(ctx, p, cur); err != nil {
			return nil, err
		} else if in != nil {
			actions = append(actions, restore.Action{Path: p, Old: in, New: want})
			planned[p] = true
			continue
		}
		if pathstate.Same(cur, want) {
			if cur == nil && left[p] != nil {
				// Made or changed by the turns, in no state now: gone,
				// or skipped now (dropIgnored says so).
				model.AddUnseen(res, p, left[p].Kind == manifest.KindDir)
			}
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
			model.AddParent(res, q)
		}
	}
	return append(actions, parents...), nil
}
