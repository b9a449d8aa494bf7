package turnback_test

// The model-based test (model_test.go): undo (whole, partial with
// UndoOptions.Paths, merging with UndoOptions.Merge) and redo (of whole
// and partial undos), each also as a dry run checked against the model
// and shown to change nothing.

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/turnback/turnback"
	"github.com/turnback/turnback/manifest"
	"github.com/turnback/turnback/restore/merge"
)

// apiUndoRandom is an undo with options drawn at random: a partial undo
// (paths the turns changed, their directories, "." or a path they did
// not change), a merge (clean or with markers), a dry run first.
func (h *harness) apiUndoRandom(n int, force bool) { h.apiUndoRandomMerge(n, force, false) }

// apiUndoRandomMerge is apiUndoRandom, always merging with mustMerge.
func (h *harness) apiUndoRandomMerge(n int, force, mustMerge bool) {
	o := turnback.UndoOptions{Force: force}
	if h.rng.Intn(3) == 0 {
		o.Paths = h.undoPaths(n)
	}
	switch r := h.rng.Intn(6); {
	case r < 2, mustMerge && r < 5:
		o.Merge = turnback.MergeClean
	case r < 3, mustMerge:
		o.Merge = turnback.MergeMarkers
	}
	if h.rng.Intn(4) == 0 {
		o.DryRun = true
		h.apiUndoWith(n, o)
		o.DryRun = false
	}
	h.apiUndoWith(n, o)
}

// undoPaths draws the paths of a partial undo of the last n turns.
func (h *harness) undoPaths(n int) []string {
	sess := h.sess.clone()
	sess.closeOpen(h.fs.clone(), "undo")
	k := min(n, len(sess.turns))
	var changed []string
	for _, t := range sess.turns[len(sess.turns)-k:] {
		changed = append(changed, changedPaths(t.before, t.after)...)
	}
	if len(changed) == 0 || h.rng.Intn(12) == 0 {
		return []string{"no-such-path-" + h.pick(modelNames)}
	}
	if h.rng.Intn(12) == 0 {
		return []string{"."}
	}
	var out []string
	for i, m := 0, 1+h.rng.Intn(2); i < m; i++ {
		p := h.pick(changed)
		if q := manifest.ParentPath(p); q != "" && h.rng.Intn(3) == 0 {
			p = q
		}
		if h.rng.Intn(4) == 0 {
			p = "./" + p // given unclean, as a user may
		}
		out = append(out, p)
	}
	return out
}

func (h *harness) apiUndo(n int, force bool) { h.apiUndoWith(n, turnback.UndoOptions{Force: force}) }

// mergeModel is undo's merge of one conflicting path (merging.go): the
// node to write, whether it has conflict markers, or ok false when the
// path stays a conflict.
func mergeModel(cur, left, want *mnode, markers bool, label string) (n *mnode, withMarkers, ok bool) {
	for _, x := range []*mnode{cur, left, want} {
		if x == nil || x.kind != mFile {
			return nil, false, false
		}
	}
	mode := want.mode
	switch {
	case cur.mode == left.mode:
	case want.mode == left.mode:
		mode = cur.mode
	default:
		return nil, false, false
	}
	m, err := merge.Three([]byte(left.data), []byte(cur.data), []byte(want.data), merge.Options{Markers: markers, OursLabel: "now", TheirsLabel: label})
	if err != nil || m.Text == nil {
		return nil, false, false
	}
	return &mnode{kind: mFile, mode: mode, data: string(m.Text)}, m.Conflicts > 0, true
}

func (h *harness) apiUndoWith(n int, o turnback.UndoOptions) {
	force := o.Force
	what := fmt.Sprintf("Undo(%d, force=%v paths=%q merge=%q dry=%v)", n, force, o.Paths, o.Merge, o.DryRun)
	cur := h.fs.clone()
	sess := h.sess.clone()
	closedTurn, _ := sess.closeOpen(cur, "undo")
	var scope []string // the paths the undo may write
	nothing := len(sess.turns) == 0
	var specs []string
	for _, p := range o.Paths {
		p = strings.TrimPrefix(p, "./")
		if p == "." {
			p = ""
		}
		specs = append(specs, p)
	}
	var (
		k              int
		turns          []*mturn
		nums           []int
		conflicts      []string
		merged, marked []string
		pl             *mplan
		badPath        bool
		empty          bool // a partial undo with nothing to change
	)
	if !nothing {
		k = min(n, len(sess.turns))
		turns = slices.Clone(sess.turns[len(sess.turns)-k:]) // the redo group keeps them: no aliasing with later appends
		left := map[string]*mnode{}
		matched := make([]bool, len(specs))
		for _, t := range turns {
			nums = append(nums, t.n)
			for _, p := range changedPaths(t.before, t.after) {
				hit := len(specs) == 0
				for i, s := range specs {
					if s == "" || p == s || isUnder(p, s) {
						matched[i], hit = true, true
					}
				}
				if hit {
					left[p] = t.after.get(p)
					scope = append(scope, p)
				}
			}
		}
		badPath = slices.Contains(matched, false)
		base := turns[0].before
		var actions []maction
		var idle []string
		for p, l := range left {
			c, w := cur.get(p), base.get(p)
			switch {
			case sameNode(c, w):
				if !sameNode(c, l) {
					idle = append(idle, p)
				}
			case sameNode(c, l):
				actions = append(actions, maction{path: p, old: c, new: w})
			default:
				if o.Merge != turnback.MergeNone {
					if m, mk, ok := mergeModel(c, l, w, o.Merge == turnback.MergeMarkers, fmt.Sprintf("before turn %d", nums[0])); ok {
						if !sameNode(c, m) {
							actions = append(actions, maction{path: p, old: c, new: m})
							merged = append(merged, p)
							if mk {
								marked = append(marked, p)
							}
						}
						continue
					}
					h.count(fmt.Sprintf("undo: not merged: %s", mergeWhyNot(c, l, w)))
				}
				conflicts = append(conflicts, p)
				actions = append(actions, maction{path: p, old: c, new: w})
			}
		}
		sort.Strings(conflicts)
		conflicts = h.withIdle(conflicts, idle)
		pl = planModel(cur, base, actions)
		empty = len(specs) > 0 && len(actions) == 0 && len(conflicts) == 0
		if len(conflicts) == 0 || force {
			if bug := h.avoid(pl); bug != "" {
				h.logf("%s: skipped, the model says it would hit known bug %s", what, bug)
				return
			}
		}
	}
	stamps := h.stamps()
	res, err := h.repo.Undo(h.ctx, n, o)
	var ce *turnback.ConflictError
	if badPath && !nothing {
		h.logf("%s -> %v", what, err)
		if !errors.Is(err, turnback.ErrPath) {
			h.failf("%s: a path the turns did not change: %v, want ErrPath", what, err)
		}
		h.untouched(what+" with a path the turns did not change", stamps, nil)
		return
	}
	if err != nil && !errors.As(err, &ce) {
		h.logf("%s -> error", what)
		h.failf("%s: %v", what, err)
	}
	if o.DryRun {
		h.untouched(what, stamps, nil)
		h.checkDry(what, res, err, k, conflicts, force, pl, merged, marked, nothing || empty)
		return
	}
	if nothing || empty {
		h.logf("%s -> nothing=%v", what, res != nil && res.Nothing)
		if err != nil || !res.Nothing {
			h.failf("%s: model has nothing to undo, got %+v, %v", what, res, err)
		}
		if closedTurn != nil {
			// As an end's: the closed turn's after-state is recorded
			// whole, the newest state.
			sess.last = cur.clone()
			h.sc.record(cur, nil, false)
			h.sc.setLatest(cur, countFiles(cur))
		}
		h.sess = sess
		h.count("undo: nothing to undo")
		h.untouched(what+" with nothing to undo", stamps, nil)
		return
	}
	if err != nil {
		h.count("undo: conflict")
		h.logf("%s turns %v -> conflict %q", what, nums, notePaths(ce.Result.Conflicts))
		if !errors.Is(err, turnback.ErrConflict) {
			h.failf("Undo: a ConflictError that is not ErrConflict")
		}
		if force || len(conflicts) == 0 {
			h.failf("%s: unexpected conflict %q (model conflicts %q)", what, notePaths(ce.Result.Conflicts), conflicts)
		}
		h.checkList("Undo conflicts", notePaths(ce.Result.Conflicts), conflicts)
		h.untouched("Undo with a conflict", stamps, nil)
		return // nothing changes, not even the open turn
	}
	h.logf("%s turns %v -> restored %q deleted %q created %q merged %q markers %q conflicts %q not restorable %v",
		what, nums, res.Restored, res.Deleted, res.Created, res.Merged, res.Markers, notePaths(res.Conflicts), res.NotRestorable)
	if len(conflicts) > 0 && !force {
		h.failf("Undo: no conflict reported, model has conflicts %q", conflicts)
	}
	if res.Nothing || res.Turns != k {
		h.failf("Undo: nothing=%v turns=%d, model undoes %d turns", res.Nothing, res.Turns, k)
	}
	h.checkList("Undo conflicts", notePaths(res.Conflicts), changedOnly(conflicts, res.Restored, res.Deleted, res.Created))
	h.checkList("Undo merged", res.Merged, changedOnly(merged, pl.restored))
	h.checkList("Undo markers", res.Markers, changedOnly(marked, pl.restored))
	h.checkList("Undo paths", res.Paths, sortedUnique(specs))
	// Its capture: scoped without an open turn (model_scope_test.go).
	cpState, resState, files, scoped := cur, pl.result, countFiles(cur), false
	if closedTurn == nil {
		cpState, resState, files, scoped = h.sc.capture(cur, pl.result, uniquePaths(scope))
	}
	if scoped {
		h.count("undo: scoped capture")
	}
	h.checkRestoreAs("Undo", res, cpState, resState, pl)
	h.sc.record(cpState, uniquePaths(scope), closedTurn == nil)
	h.sc.record(resState, uniquePaths(scope), closedTurn == nil)
	h.sc.setLatest(resState, files)
	h.untouched("Undo", stamps, touchedBy(pl))
	h.countPlan("undo", k, force, conflicts, pl)
	if len(merged) > 0 {
		h.count(fmt.Sprintf("undo: merged (markers %v)", len(marked) > 0))
	}
	switch {
	case len(specs) == 0:
		sess.turns = sess.turns[:len(sess.turns)-k]
		sess.redo = append(sess.redo, &mgroup{turns: turns, checkpoint: cur, expected: pl.result.clone()})
	case len(pl.restored)+len(pl.deleted)+len(pl.made) > 0:
		h.count("undo: partial")
		sess.redo = append(sess.redo, &mgroup{partial: nums, paths: sortedUnique(specs), checkpoint: cur, expected: pl.result.clone()})
	}
	sess.last = resState.clone()
	h.sess = sess
}

func sortedUnique(ss []string) []string {
	out := sortedCopy(ss)
	return slices.Compact(out)
}

// checkDry checks a dry run's result against the model's plan: the
// lists the command would return, or the conflicts it would stop at.
func (h *harness) checkDry(what string, res *turnback.RestoreResult, err error, turns int, conflicts []string, force bool, pl *mplan, merged, marked []string, nothing bool) {
	h.count(strings.SplitN(what, "(", 2)[0] + ": dry run")
	if res == nil || res.DryRun == nil {
		h.failf("%s: no preview (%v)", what, err)
	}
	p := res.DryRun
	h.logf("%s -> preview turns %d stopped %v restored %q deleted %q created %q merged %q conflicts %q not restorable %v (err %v)",
		what, p.Turns, p.Stopped, p.Restored, p.Deleted, p.Created, p.Merged, notePaths(p.Conflicts), p.NotRestorable, err)
	if nothing {
		if !res.Nothing || err != nil {
			h.failf("%s: model has nothing to do, got nothing=%v %v", what, res.Nothing, err)
		}
		return
	}
	stop := len(conflicts) > 0 && !force
	if p.Stopped != stop || errors.Is(err, turnback.ErrConflict) != stop {
		h.failf("%s: stopped %v (%v), model conflicts %q", what, p.Stopped, err, conflicts)
	}
	if stop {
		h.checkList(what+" conflicts", notePaths(p.Conflicts), conflicts)
		return
	}
	if p.Turns != turns {
		h.failf("%s: preview of %d turns, model %d", what, p.Turns, turns)
	}
	if len(pl.madeParents) == 0 {
		h.checkList(what+" restored", p.Restored, pl.restored)
		h.checkList(what+" deleted", p.Deleted, pl.deleted)
		h.checkList(what+" created", p.Created, pl.made)
	}
	h.checkList(what+" conflicts", notePaths(p.Conflicts), changedOnly(conflicts, p.Restored, p.Deleted, p.Created))
	h.checkList(what+" merged", p.Merged, changedOnly(merged, pl.restored))
	h.checkList(what+" markers", p.Markers, changedOnly(marked, pl.restored))
	h.checkList(what+" not restorable", notePaths(p.NotRestorable), append(slices.Clone(pl.blocked), pl.kept...))
}

// apiRedoRandom is a redo, after a dry run of it one time in four.
func (h *harness) apiRedoRandom(n int, force bool) {
	if h.rng.Intn(4) == 0 {
		h.apiRedoWith(n, turnback.RedoOptions{Force: force, DryRun: true})
	}
	h.apiRedoWith(n, turnback.RedoOptions{Force: force})
}

func (h *harness) apiRedo(n int, force bool) { h.apiRedoWith(n, turnback.RedoOptions{Force: force}) }

func (h *harness) apiRedoWith(n int, o turnback.RedoOptions) {
	force := o.Force
	what := fmt.Sprintf("Redo(%%d, force=%v dry=%v)", force, o.DryRun)
	// Run the model first, one step at a time (a turn of a whole undo,
	// or a partial undo). With something to redo, the open turn is
	// closed first (the redo rule: one that changed the folder clears
	// the redo stack).
	sim := h.sess.clone()
	fs := h.fs.clone()
	sc := h.sc.clone()
	if len(sim.redo) > 0 {
		if closed, dropped := sim.closeOpen(fs, "redo"); closed != nil {
			sim.last = fs.clone() // as an end's: the newest state recorded
			sc.record(fs, nil, false)
			sc.setLatest(fs, countFiles(fs))
			h.count(fmt.Sprintf("redo: closed the open turn, dropped %v", dropped))
		}
	}
	scClosed := sc.clone()
	var (
		plans               []*mplan
		firstCP, lastResult mtree
		stopConflicts       []string
		madeParents         bool
		done, turns         int
		paths               []string
		all                 struct{ restored, deleted, made, conflicts, notRestorable []string }
	)
	calls := n
	// A conflict in any step refuses the whole redo (all or nothing):
	// the session as the open turn's closing left it, the folder as is.
	simClosed, fsBefore := sim.clone(), fs
	for i := 0; i < n && len(sim.redo) > 0; i++ {
		g := sim.redo[len(sim.redo)-1]
		// Its capture reads the paths of this step and of the ones
		// after it (so that the first checkpoint goes back for all).
		stepScope := redoScopeModel(sim, n-i)
		var changed []string
		var goal mtree
		var t *mturn
		if g.partial != nil {
			changed, goal = changedPaths(g.expected, g.checkpoint), g.checkpoint
		} else {
			t = g.turns[0]
			changed, goal = changedPaths(t.before, t.after), g.checkpoint
			if len(g.turns) > 1 {
				goal = g.turns[1].before
			}
		}
		var conflicts, idle []string
		var actions []maction
		for _, p := range changed {
			c, w := fs.get(p), goal.get(p)
			switch {
			case sameNode(c, w):
				if !sameNode(c, g.expected.get(p)) {
					idle = append(idle, p)
				}
			default:
				if !sameNode(c, g.expected.get(p)) {
					conflicts = append(conflicts, p)
				}
				actions = append(actions, maction{path: p, old: c, new: w})
			}
		}
		conflicts = h.withIdle(conflicts, idle)
		pl := planModel(fs, goal, actions)
		if len(conflicts) == 0 || force {
			if bug := h.avoid(pl); bug != "" {
				h.logf("%s: the model says step %d would hit known bug %s: redo only %d", fmt.Sprintf(what, n), i+1, bug, done)
				calls = done
				break
			}
		}
		if i > 0 && len(conflicts) > 0 {
			// The case the redo once missed: an edit made after the
			// undo to a path of a later turn (step 1 recorded the
			// state it left, edit included, as expected).
			h.count("redo: a later step's conflict")
		}
		if len(conflicts) > 0 && !force {
			stopConflicts = conflicts
			break
		}
		plans = append(plans, pl)
		cpState, resState, files, scoped := sc.capture(fs, pl.result, stepScope)
		if scoped {
			h.count("redo: scoped capture")
		}
		sc.record(cpState, stepScope, true)
		sc.record(resState, stepScope, true)
		sc.setLatest(resState, files)
		if firstCP == nil {
			firstCP = cpState
		}
		lastResult = resState
		all.restored = append(all.restored, pl.restored...)
		all.deleted = append(all.deleted, pl.deleted...)
		all.made = append(all.made, pl.made...)
		// Per turn: a conflict of this turn that only another redone
		// turn changed (its redo here blocked) was not overwritten.
		all.conflicts = append(all.conflicts, changedOnly(conflicts, pl.restored, pl.deleted, pl.made)...)
		all.notRestorable = append(append(all.notRestorable, pl.blocked...), pl.kept...)
		madeParents = madeParents || len(pl.madeParents) > 0
		fs = pl.result
		if g.partial != nil {
			turns += len(g.partial)
			paths = append(paths, g.paths...)
			sim.redo = sim.redo[:len(sim.redo)-1]
			h.count("redo: a partial undo")
		} else {
			turns++
			sim.turns = append(sim.turns, t)
			g.turns = g.turns[1:]
			// The next turn is checked against what the undo left, with
			// only this turn's paths as its redo left them: an edit made
			// after the undo to a path of a later turn stays a conflict.
			// Directories this step had to make for its paths are its own
			// too: a later turn that changes one finds it as made, not
			// as an edit after the undo (seed 8659235623291212118: the
			// undo removed b/a.b, the redo of turn 3 made it again for
			// b/a.b/b, and turn 4 turns it into a symlink).
			// A path the step left absent, or as other than a directory,
			// has nothing below it (as manifest.Edit's removal): not
			// even a directory the undo kept for the user's files (seed
			// 4629639869306366683: turn 4 removed a-, turn 5 made a-/a,
			// the undo kept a-/a, a restore removed a-).
			e := g.expected.clone()
			for _, p := range append(changed, pl.madeParents...) {
				n := pl.result.get(p)
				if n == nil || n.kind != mDir {
					for q := range e {
						if isUnder(q, p) {
							delete(e, q)
						}
					}
				}
				e.set(p, n)
			}
			g.expected = e
			if len(g.turns) == 0 {
				sim.redo = sim.redo[:len(sim.redo)-1]
			}
		}
		sim.last = resState.clone()
		done++
	}
	if calls == 0 {
		return
	}
	what = fmt.Sprintf(what, calls)
	stamps := h.stamps()
	res, err := h.repo.Redo(h.ctx, calls, o)
	var ce *turnback.ConflictError
	if err != nil && !errors.As(err, &ce) {
		h.logf("%s -> error", what)
		h.failf("%s: %v", what, err)
	}
	if o.DryRun {
		h.untouched(what, stamps, nil)
		if res == nil || res.DryRun == nil {
			h.failf("%s: no preview (%v)", what, err)
		}
		p := res.DryRun
		h.logf("%s -> preview turns %d stopped %v restored %q deleted %q created %q conflicts %q not restorable %v (err %v)",
			what, p.Turns, p.Stopped, p.Restored, p.Deleted, p.Created, notePaths(p.Conflicts), p.NotRestorable, err)
		h.count("Redo: dry run")
		if res.Nothing != (done == 0 && stopConflicts == nil) || p.Stopped != (stopConflicts != nil) || p.Turns != turns {
			h.failf("%s: preview nothing %v stopped %v turns %d, model %d turns stopping at %q", what, res.Nothing, p.Stopped, p.Turns, turns, stopConflicts)
		}
		if !madeParents && len(plans) <= 1 {
			// Steps after the first are planned against the disk as it
			// is (redoDry): their lists are not compared.
			h.checkList(what+" restored", p.Restored, all.restored)
			h.checkList(what+" deleted", p.Deleted, all.deleted)
			h.checkList(what+" created", p.Created, all.made)
			h.checkList(what+" not restorable", notePaths(p.NotRestorable), all.notRestorable)
		}
		h.checkList(what+" conflicts", notePaths(p.Conflicts), uniquePaths(append(slices.Clone(all.conflicts), stopConflicts...)))
		return
	}
	if err != nil {
		res = ce.Result
	}
	if stopConflicts != nil {
		sim, fs, done, turns, plans = simClosed, fsBefore, 0, 0, nil
		sc = scClosed
	}
	h.sc = sc
	h.logf("%s -> turns %d nothing %v paths %q restored %q deleted %q created %q conflicts %q not restorable %v (err %v)",
		what, res.Turns, res.Nothing, res.Paths, res.Restored, res.Deleted, res.Created, notePaths(res.Conflicts), res.NotRestorable, err)
	switch {
	case stopConflicts != nil:
		h.count("redo: conflict")
	case done == 0:
		h.count("redo: nothing to redo")
	default:
		h.count(fmt.Sprintf("redo: %d steps", done))
	}
	if stopConflicts != nil {
		if err == nil {
			h.failf("Redo: no conflict reported, the model has conflicts %q after %d steps", stopConflicts, done)
		}
		h.checkList("Redo conflicts", notePaths(ce.Result.Conflicts), stopConflicts)
	} else if err != nil {
		h.failf("%s: unexpected conflict %q", what, notePaths(ce.Result.Conflicts))
	}
	if res.Turns != turns || (stopConflicts == nil && res.Nothing != (done == 0)) {
		h.failf("Redo: nothing=%v turns=%d, model redoes %d steps, %d turns", res.Nothing, res.Turns, done, turns)
	}
	h.sess, h.fs = sim, fs
	if done == 0 {
		h.untouched("Redo with nothing done", stamps, nil)
	} else {
		h.untouched("Redo", stamps, touchedBy(plans...))
	}
	if done == 0 || stopConflicts != nil {
		return
	}
	h.checkList("Redo paths", res.Paths, uniquePaths(paths))
	h.learn(res.Checkpoint, firstCP, "Redo checkpoint")
	h.learn(res.Result, lastResult, "Redo result")
	if !madeParents {
		// Each path once, by whether it was there before the first step
		// and after the last.
		restored, deleted, made := netModel(firstCP, lastResult, all.restored, all.deleted, all.made)
		h.checkList("Redo restored", res.Restored, restored)
		h.checkList("Redo deleted", res.Deleted, deleted)
		h.checkList("Redo created", res.Created, made)
	}
	h.checkList("Redo conflicts", notePaths(res.Conflicts), uniquePaths(all.conflicts))
	h.checkList("Redo not restorable", notePaths(res.NotRestorable), uniquePaths(all.notRestorable))
}

// netModel sorts the paths the steps of a redo touched by whether they
// are in first (before the first step) and last (after the last).
func netModel(first, last mtree, touched ...[]string) (restored, deleted, made []string) {
	for _, p := range uniquePaths(slices.Concat(touched...)) {
		was, is := first.get(p) != nil, last.get(p) != nil
		switch {
		case was && is:
			restored = append(restored, p)
		case was:
			deleted = append(deleted, p)
		case is:
			made = append(made, p)
		}
	}
	return restored, deleted, made
}

// uniquePaths is ps sorted, each once.
func uniquePaths(ps []string) []string { return slices.Compact(sortedCopy(ps)) }

// mergeWhyNot says, for the counts, why mergeModel did not merge.
func mergeWhyNot(c, l, w *mnode) string {
	for _, x := range []*mnode{c, l, w} {
		if x == nil || x.kind != mFile {
			return "not a file"
		}
	}
	if c.mode != l.mode && w.mode != l.mode {
		return "modes"
	}
	if strings.ContainsRune(c.data+l.data+w.data, 0) {
		return "binary"
	}
	return "overlap"
}
