package turnback_test

// Regression test: a redo of several turns must see an edit the user
// made after the undo to a path of a later turn (the conflict rule:
// exit 3, nothing changed, unless --force). It did not: each step
// recorded the state it left, the user's edit included, as what the
// next step expects, so the next step overwrote the edit without a
// conflict (the edit stayed in that step's checkpoint). And redo N,
// refused at a later step, kept the steps before (now all or nothing).

import (
	"errors"
	"slices"
	"testing"

	"github.com/turnback/turnback"
)

// laterEditTree is a folder with two closed turns (turn 1 sets a.txt to
// "a1", turn 2 b.txt to "b1"), both undone, and the user's edit of
// b.txt (turn 2's file) made after the undo.
func laterEditTree(t *testing.T) *regressTree {
	rt := newRegressTree(t)
	rt.write("a.txt", "a0")
	rt.write("b.txt", "b0")
	rt.snap()
	rt.write("a.txt", "a1")
	rt.snap()
	rt.write("b.txt", "b1")
	rt.end()
	_, err := rt.repo.Undo(rt.ctx, 2, turnback.UndoOptions{})
	rt.do("undo 2", err)
	rt.write("b.txt", "the user's edit")
	return rt
}

func wantConflict(t *testing.T, what string, res *turnback.RestoreResult, err error, paths ...string) {
	t.Helper()
	var ce *turnback.ConflictError
	if !errors.As(err, &ce) {
		t.Fatalf("%s: %v (result %+v), want a conflict on %q", what, err, res, paths)
	}
	if got := notePaths(ce.Result.Conflicts); !slices.Equal(got, paths) {
		t.Fatalf("%s: conflicts %q, want %q", what, got, paths)
	}
}

func TestRegressRedoLaterTurnEdited(t *testing.T) {
	t.Parallel()
	file := func(data string) mnode { return mnode{kind: mFile, mode: 0o644, data: data} }
	undone := mtree{"a.txt": file("a0"), "b.txt": file("the user's edit")}
	afterTurn1 := mtree{"a.txt": file("a1"), "b.txt": file("the user's edit")}
	for _, c := range []struct {
		name   string
		n      int                                                    // redo N refused, then forced
		before func(rt *regressTree) (*turnback.RestoreResult, error) // redo N refused after this
		want   mtree                                                  // after the refusal
	}{
		// All or nothing: turn 1 is clean, but the redo changes nothing.
		{"redo 2", 2, nil, undone},
		{"redo, redo", 1, func(rt *regressTree) (*turnback.RestoreResult, error) {
			return rt.repo.Redo(rt.ctx, 1, turnback.RedoOptions{})
		}, afterTurn1},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			rt := laterEditTree(t)
			// The dry run of both reports the second step's conflict.
			res, err := rt.repo.Redo(rt.ctx, 2, turnback.RedoOptions{DryRun: true})
			wantConflict(t, "redo 2 --dry-run", res, err, "b.txt")
			if res.DryRun == nil || !res.DryRun.Stopped || res.DryRun.Turns != 1 {
				t.Fatalf("redo 2 --dry-run: preview %+v, want stopped after turn 1", res.DryRun)
			}
			if c.before != nil {
				res, err := c.before(rt)
				rt.do("the first redo (turn 1: its paths are clean)", err)
				if res.Turns != 1 || len(res.Conflicts) > 0 {
					t.Fatalf("the first redo: %+v, want turn 1 redone without conflicts", res)
				}
				res, err = rt.repo.Redo(rt.ctx, 1, turnback.RedoOptions{DryRun: true})
				wantConflict(t, "redo --dry-run", res, err, "b.txt")
			}
			res, err = rt.repo.Redo(rt.ctx, c.n, turnback.RedoOptions{})
			wantConflict(t, c.name, res, err, "b.txt")
			if res.Turns != 0 {
				t.Fatalf("%s: %d turns redone, want 0", c.name, res.Turns)
			}
			rt.want(c.want)
			if n := rt.redoable(); n != c.n {
				t.Fatalf("after the refused redo: %d turns to redo, want %d", n, c.n)
			}
			// --force proceeds; the edit is in its checkpoint.
			res, err = rt.repo.Redo(rt.ctx, c.n, turnback.RedoOptions{Force: true})
			rt.do("redo --force", err)
			if got := notePaths(res.Conflicts); !slices.Equal(got, []string{"b.txt"}) || res.Turns != c.n {
				t.Fatalf("redo --force: %d turns, conflicts %q, want %d turns, b.txt (overwritten)", res.Turns, got, c.n)
			}
			rt.want(mtree{"a.txt": file("a1"), "b.txt": file("b1")})
			_, err = rt.repo.Restore(rt.ctx, res.Checkpoint.String(), turnback.RestoreOptions{})
			rt.do("restore the checkpoint", err)
			rt.want(c.want)
		})
	}
	// An edit of turn 1's file stops the first step: nothing is redone.
	t.Run("turn 1 edited", func(t *testing.T) {
		t.Parallel()
		rt := laterEditTree(t)
		rt.write("b.txt", "b0")
		rt.write("a.txt", "the user's edit")
		res, err := rt.repo.Redo(rt.ctx, 2, turnback.RedoOptions{})
		wantConflict(t, "redo 2", res, err, "a.txt")
		rt.want(mtree{"a.txt": file("the user's edit"), "b.txt": file("b0")})
		if n := rt.redoable(); n != 2 {
			t.Fatalf("after the refused redo: %d turns to redo, want 2", n)
		}
	})
	// The model test's harness runs the same steps (it expected the
	// overwrite before the fix).
	t.Run("model", func(t *testing.T) {
		runScripted(t,
			func(h *harness) {
				h.diskWrite("a.txt", "a0", 0o644, false)
				h.diskWrite("b.txt", "b0", 0o644, false)
			},
			func(h *harness) { h.apiSnap() },
			func(h *harness) { h.diskWrite("a.txt", "a1", 0o644, false) },
			func(h *harness) { h.apiSnap() },
			func(h *harness) { h.diskWrite("b.txt", "b1", 0o644, false) },
			func(h *harness) { h.apiEnd() },
			func(h *harness) { h.apiUndo(2, false) },
			func(h *harness) { h.diskWrite("b.txt", "the user's edit", 0o644, false) },
			func(h *harness) { h.apiRedoWith(2, turnback.RedoOptions{DryRun: true}) },
			func(h *harness) { h.apiRedo(2, false) },
			func(h *harness) { h.apiRedo(1, false) },
			func(h *harness) { h.apiRedo(1, false) },
			func(h *harness) { h.apiRedo(1, true) },
		)
	})
}
