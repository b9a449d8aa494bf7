package turnback

// Redo: re-applying undone turns (restore.go has the execute step that
// Undo, Redo and Restore share).

import (
	"context"
	"errors"
	"fmt"

	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/internal/model"
	"github.com/turnback/turnback/internal/pathstate"
	"github.com/turnback/turnback/internal/treepath"
	"github.com/turnback/turnback/manifest"
	"github.com/turnback/turnback/restore"
)

// Redo re-applies undone turns one at a time, oldest first; a partial
// undo (UndoOptions.Paths) is redone in one step that puts its paths
// back. A conflict in any of the n steps (each planned against the state
// the steps before would leave, as the dry run does) returns a
// *ConflictError listing it and changes nothing, unless o.Force is set:
// all or nothing, as undo. (An edit made while the redo runs can still
// stop it after the steps already done.) With o.DryRun nothing is
// changed and the result's DryRun says what would be.
func (r *Repo) Redo(ctx context.Context, n int, o RedoOptions) (*RestoreResult, error) {
	return r.be.Redo(ctx, n, o)
}

func (l localRepo) Redo(ctx context.Context, n int, o RedoOptions) (*RestoreResult, error) {
	res, err := l.r.redo(ctx, n, o)
	if res != nil {
		res.Moved = model.OldestOnce(res.Moved)
	}
	return res, err
}

func (r *Repo) redo(ctx context.Context, n int, o RedoOptions) (*RestoreResult, error) {
	if n < 1 {
		return nil, fmt.Errorf("turnback: redo: count must be at least 1, got %d", n)
	}
	if err := r.lock(ctx); err != nil {
		return nil, err
	}
	defer r.unlock()
	defer r.shareTrees()()
	if err := r.refusePulled(ctx, "redo"); err != nil {
		return nil, err
	}
	if o.DryRun {
		return r.redoDry(ctx, n, o.Force)
	}
	if err := r.closeForRedo(ctx); err != nil {
		return nil, err
	}
	if n > 1 && !o.Force {
		if _, err := r.redoDry(ctx, n, false); err != nil {
			var ce *ConflictError
			if errors.As(err, &ce) {
				res := &RestoreResult{Conflicts: ce.Result.Conflicts}
				return res, &ConflictError{Result: res}
			}
			return nil, err
		}
	}
	total := &RestoreResult{}
	var steps []model.StepReport
	net := func() {
		// Each path once, as the steps left it (a path two steps
		// rewrote is one "restored").
		total.Restored, total.Deleted, total.Created, total.Conflicts, total.NotRestorable = model.NetReport(steps)
		if len(total.Paths) > 0 {
			total.Paths = treepath.SortedUnique(total.Paths)
		}
	}
	for i := 0; i < n; i++ {
		one, err := r.redoOne(ctx, o.Force, n-i)
		if err != nil {
			var ce *ConflictError
			if errors.As(err, &ce) {
				net()
				total.Conflicts = ce.Result.Conflicts
				return total, &ConflictError{Result: total}
			}
			return nil, err
		}
		if one.Nothing {
			total.Nothing = total.Turns == 0
			break
		}
		total.Turns += one.Turns
		total.Moved = append(total.Moved, one.Moved...)
		total.Paths = append(total.Paths, one.Paths...)
		steps = append(steps, model.StepReport{Restored: one.Restored, Deleted: one.Deleted, Created: one.Created, Conflicts: one.Conflicts, NotRestorable: one.NotRestorable})
		if total.Checkpoint.IsZero() {
			total.Checkpoint = one.Checkpoint
		}
		total.Result = one.Result
	}
	net()
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
	rec, err := r.closedSnapshot(ctx, snap)
	if err != nil {
		return err
	}
	writes = append(writes, model.SessionEntry(sess), rec)
	writes = append(writes, r.latestEntries(snap.Root, snap.Root)...)
	return r.commit(ctx, writes, deletes)
}

// redoStep is the redo of the group on top of a session's redo stack,
// planned against the state now.
type redoStep struct {
	turns   []int   // the turns it redoes (a partial undo: whose paths)
	moved   []*Turn // their records
	paths   []string
	scope   []string // every path it sets (what its turn changed)
	actions []restore.Action
	ignored []PathNote
	res     *RestoreResult // conflicts and parent directories
	goal    cas.Hash       // the state its paths go to
}

// planRedo plans the redo of the top of sess's redo stack from the state
// now; nil when the stack is empty. A whole undo is redone one turn at a
// time: the turn's paths go to what the next turn started from, or for
// the last one to the undo's checkpoint. A partial undo is redone at
// once: every path that differs between what it left and its
// checkpoint goes back to the checkpoint.
func (r *Repo) planRedo(ctx context.Context, sess *model.SessionRecord, now cas.Hash, force bool) (*redoStep, error) {
	if len(sess.Redo) == 0 {
		return nil, nil
	}
	g := &sess.Redo[len(sess.Redo)-1]
	if len(g.Turns) == 0 && !g.IsPartial() {
		return nil, fmt.Errorf("%w: session %s: empty redo entry", cas.ErrCorrupt, r.session)
	}
	expected, err := cas.ParseHash(g.Expected)
	if err != nil {
		return nil, fmt.Errorf("%w: session %s: %v", cas.ErrCorrupt, r.session, err)
	}
	goal, err := cas.ParseHash(g.Checkpoint)
	if err != nil {
		return nil, fmt.Errorf("%w: session %s: %v", cas.ErrCorrupt, r.session, err)
	}
	loader := manifest.NewCachingLoader(r.loader())
	left := map[string]*manifest.Entry{}
	st := &redoStep{res: &RestoreResult{}}
	if g.IsPartial() {
		st.turns, st.paths = g.Partial, g.Paths
		for _, n := range g.Partial {
			t, err := r.loadTurn(ctx, r.session, n)
			if err != nil {
				return nil, err
			}
			st.moved = append(st.moved, t)
		}
		err = manifest.Diff(ctx, loader, expected, goal, func(c manifest.Change) error {
			left[c.Path] = c.Old
			return nil
		})
	} else {
		st.turns = g.Turns[:1]
		var t *Turn
		if t, err = r.loadTurn(ctx, r.session, g.Turns[0]); err != nil {
			return nil, err
		}
		st.moved = []*Turn{t}
		if len(g.Turns) > 1 {
			next, err := r.loadTurn(ctx, r.session, g.Turns[1])
			if err != nil {
				return nil, err
			}
			goal = next.Before
		}
		err = manifest.Diff(ctx, loader, t.Before, t.After, func(c manifest.Change) error {
			e, err := manifest.Find(ctx, loader, expected, c.Path)
			left[c.Path] = e
			return err
		})
	}
	if err != nil {
		return nil, err
	}
	cp, _ := cas.ParseHash(g.Checkpoint) // parsed above, as goal
	if err := r.foreignLeft(ctx, loader, expected, cp, now, left); err != nil {
		return nil, err
	}
	for p := range left {
		st.scope = append(st.scope, p)
	}
	// A goal another machine captured (a pulled turn's state) keeps
	// each path's owner here (pull_owners.go).
	foreign, err := r.foreignTurns(ctx, r.session)
	if err != nil {
		return nil, err
	}
	pulledGoal := !g.IsPartial() && len(g.Turns) > 1 && foreign[g.Turns[1]]
	if !pulledGoal {
		if pulledGoal, err = r.foreignState(ctx, goal); err != nil {
			return nil, err
		}
	}
	st.actions, err = r.actionsFor(ctx, loader, left, now, func(p string) (*manifest.Entry, error) {
		e, err := manifest.Find(ctx, loader, goal, p)
		if pulledGoal {
			e = pathstate.ForeignTarget(e)
		}
		return e, err
	}, st.res, force)
	if err != nil {
		return nil, err
	}
	st.goal = goal
	st.actions, st.ignored, err = r.dropIgnored(ctx, loader, st.actions, now, goal, st.res)
	return st, err
}

// redone records in sess the redo of the top of its redo stack by st,
// which left the state result. A whole undo's next turn is checked
// against what the undo left, with only this step's own paths taken
// from result: a path the user changed after the undo that this step
// did not set is still a change (taking all of result would hide it,
// and the next step would overwrite it without a conflict).
func (r *Repo) redone(ctx context.Context, sess *model.SessionRecord, st *redoStep, result cas.Hash) error {
	g := &sess.Redo[len(sess.Redo)-1]
	if !g.IsPartial() {
		sess.Turns = append(sess.Turns, g.Turns[0])
		g.Turns = g.Turns[1:]
		if len(g.Turns) > 0 {
			expected, err := r.nextExpected(ctx, g.Expected, st.scope, result)
			if err != nil {
				return err
			}
			g.Expected = expected.String()
		}
	}
	if len(g.Turns) == 0 {
		sess.Redo = sess.Redo[:len(sess.Redo)-1]
	}
	sess.Last = result.String()
	return nil
}

// nextExpected is the state a redo step leaves where the undo or the
// steps before left prev: prev with every path of scope as result has
// it (and the parent directories result gives them, where prev has
// none).
func (r *Repo) nextExpected(ctx context.Context, prev string, scope []string, result cas.Hash) (cas.Hash, error) {
	base, err := cas.ParseHash(prev)
	if err != nil {
		return cas.Hash{}, fmt.Errorf("%w: session %s: %v", cas.ErrCorrupt, r.session, err)
	}
	loader := manifest.NewCachingLoader(r.loader())
	changes := map[string]*manifest.Entry{}
	for _, p := range scope {
		e, err := manifest.Find(ctx, loader, result, p)
		if err != nil {
			return cas.Hash{}, err
		}
		if e == nil {
			old, err := manifest.Find(ctx, loader, base, p)
			if err != nil {
				return cas.Hash{}, err
			}
			if old == nil {
				continue // absent both ways (prev may have no directory above p)
			}
		}
		changes[p] = e
		for q := manifest.ParentPath(p); e != nil && q != ""; q = manifest.ParentPath(q) {
			if _, ok := changes[q]; ok {
				break
			}
			old, err := manifest.Find(ctx, loader, base, q)
			if err != nil {
				return cas.Hash{}, err
			}
			if old != nil && old.IsCapturedDir() {
				break
			}
			if changes[q], err = manifest.Find(ctx, loader, result, q); err != nil {
				return cas.Hash{}, err
			}
		}
	}
	if len(changes) == 0 {
		return base, nil
	}
	w := r.store.NewWriter()
	defer w.Cancel()
	h, err := manifest.Edit(ctx, loader, w, base, changes)
	if err != nil {
		return h, err
	}
	return h, w.Flush()
}

// redoOne redoes the next step; its checkpoint vouches for the paths of
// the next steps steps (this one included), so that the checkpoint a
// redo of several steps prints (its first) goes back for all of them.
func (r *Repo) redoOne(ctx context.Context, force bool, steps int) (*RestoreResult, error) {
	sess, err := r.loadSession(ctx, r.session)
	if err != nil {
		return nil, err
	}
	if len(sess.Redo) == 0 {
		return &RestoreResult{Nothing: true}, nil
	}
	snap, scope, err := r.captureRedo(ctx, sess, steps)
	if err != nil {
		return nil, err
	}
	st, err := r.planRedo(ctx, sess, snap.Root, force)
	if err != nil || st == nil {
		return &RestoreResult{Nothing: true}, err
	}
	res := st.res
	if len(res.Conflicts) > 0 && !force {
		return res, &ConflictError{Result: res}
	}
	notice, err := r.noticeEntry(ctx, "redo", st.turns, st.actions)
	if err != nil {
		return nil, err
	}
	out, err := r.executeIn(ctx, model.OpName("redo", st.turns), newVouch(append(scope, st.scope...)), snap.Root, st.goal, st.actions, model.Parents(res), force, func(cp, result cas.Hash) ([]cas.Entry, [][]byte, error) {
		if err := r.redone(ctx, sess, st, result); err != nil {
			return nil, nil, err
		}
		return []cas.Entry{model.SessionEntry(sess), notice}, nil, nil
	})
	if err != nil {
		return model.ConflictResult(res, err)
	}
	out.Turns, out.Paths, out.Conflicts = len(st.turns), st.paths, model.Overwritten(out, res.Conflicts)
	out.Moved = st.moved
	out.NotRestorable = append(out.NotRestorable, st.ignored...)
	return out, nil
}

// redoDry is Redo's dry run: each step is planned against the state the
// steps before would leave, and nothing is written but (on a writable
// Repo) the capture and the trees of those states. The plan's look at
// the disk (a path in the way, a directory that still holds something)
// sees the disk as the steps before would leave it.
func (r *Repo) redoDry(ctx context.Context, n int, force bool) (*RestoreResult, error) {
	sess, err := r.loadSession(ctx, r.session)
	if err != nil {
		return nil, err
	}
	snap, _, err := r.captureRedo(ctx, sess, n)
	if err != nil {
		return nil, err
	}
	now := snap.Root
	if len(sess.Redo) > 0 {
		if _, _, _, _, err := r.closeOpen(ctx, sess, now, "redo"); err != nil {
			return nil, err
		}
	}
	total := &Preview{}
	var moved []*Turn
	var steps []model.StepReport
	var plans []*restore.Plan // the steps before, whose changes each plan sees
	for i := 0; i < n; i++ {
		st, err := r.planRedo(ctx, sess, now, force)
		if err != nil {
			return nil, err
		}
		if st == nil {
			break
		}
		p, _, plan, err := r.previewAfter(ctx, plans, st.actions, st.res, st.ignored, force)
		if err != nil {
			return nil, err
		}
		if p.Stopped {
			steps = append(steps, model.StepReport{Conflicts: p.Conflicts})
			total.Stopped = true
			break
		}
		total.Turns += len(st.turns)
		moved = append(moved, st.moved...)
		total.Paths = append(total.Paths, st.paths...)
		steps = append(steps, model.StepReport{Restored: p.Restored, Deleted: p.Deleted, Created: p.Created, Conflicts: p.Conflicts, NotRestorable: p.NotRestorable})
		plans = append(plans, plan)
		if now, err = r.predict(ctx, now, plan); err != nil {
			return nil, err
		}
		if err := r.redone(ctx, sess, st, now); err != nil {
			return nil, err
		}
	}
	// Each path once, as the steps would leave it (see Redo).
	total.Restored, total.Deleted, total.Created, total.Conflicts, total.NotRestorable = model.NetReport(steps)
	if len(total.Paths) > 0 {
		total.Paths = treepath.SortedUnique(total.Paths)
	}
	if total.Turns == 0 && !total.Stopped {
		return &RestoreResult{Nothing: true, DryRun: total}, nil
	}
	res, err := model.DryResult(total)
	res.Moved = moved
	return res, err
}
