package turnback_test

import (
	"errors"
	"fmt"
	"os"
	"testing"

	"github.com/turnback/turnback"
)

// scopeAttackTree is a folder of 40 files outside a/ and a closed turn
// that rewrote a/x.txt, deleted a/y.txt and made a/z.txt: an undo of
// it reads a/ alone (scoped.go).
func scopeAttackTree(t *testing.T) *regressTree {
	rt := newRegressTree(t)
	for i := range 20 {
		rt.write(fmt.Sprintf("b/%d.txt", i), "b")
		rt.write(fmt.Sprintf("c/%d.txt", i), "c")
	}
	rt.write("a/x.txt", "x0")
	rt.write("a/y.txt", "y0")
	rt.snap()
	rt.write("a/x.txt", "x by the agent")
	must(t, os.Remove(rt.path("a/y.txt")))
	rt.write("a/z.txt", "z by the agent")
	rt.end()
	return rt
}

// TestUndoScopedEditsDuringUndo: edits made at every step of a scoped
// undo, to a path the undo rewrites and to one outside it, are never
// lost: the outside one stays in its file, through the undo and through
// restore of its checkpoint; the other is in its file or, overwritten,
// in the checkpoint, which restore puts back.
func TestUndoScopedEditsDuringUndo(t *testing.T) {
	editsDuringUndo(t, scopeAttackTree, func(t *testing.T, rt *regressTree, k int) func(string) {
		outside := fmt.Sprintf("outside at step %d", k)
		rt.write("b/3.txt", outside)
		return func(when string) {
			t.Helper()
			if got := rt.read("b/3.txt"); got != outside {
				t.Fatalf("%s b/3.txt holds %q, want %q", when, got, outside)
			}
		}
	}, nil)
}

// editsDuringUndo runs an undo of tree's last turn once per step of its
// restore. At that step it types into a/x.txt, a turn path, and makes
// the edits edit makes, which returns the check that they are there. A
// refused undo leaves every edit; an undo keeps the others, and when it
// overwrote a/x.txt, restore of its checkpoint brings that edit back and
// keeps the others. Then then, if any, runs with the check.
func editsDuringUndo(t *testing.T, tree func(*testing.T) *regressTree,
	edit func(t *testing.T, rt *regressTree, k int) func(when string), then func(t *testing.T, rt *regressTree, kept func(when string))) {
	t.Parallel()
	var steps []string
	rt := tree(t)
	rt.repo.SetRestoreHook(func(s string) error { steps = append(steps, s); return nil })
	_, err := rt.repo.Undo(rt.ctx, 1, turnback.UndoOptions{})
	rt.do("undo", err)
	if len(steps) < 4 {
		t.Fatalf("restore steps %q", steps)
	}
	for k := range steps {
		t.Run(fmt.Sprintf("%d_%s", k, steps[k]), func(t *testing.T) {
			t.Parallel()
			rt := tree(t)
			inside := fmt.Sprintf("typed at step %d", k)
			n := 0
			var kept func(string)
			rt.repo.SetRestoreHook(func(string) error {
				if n == k {
					rt.write("a/x.txt", inside)
					kept = edit(t, rt, k)
				}
				n++
				return nil
			})
			res, err := rt.repo.Undo(rt.ctx, 1, turnback.UndoOptions{})
			rt.repo.SetRestoreHook(nil)
			if kept == nil {
				t.Fatalf("the undo stopped before step %d", k)
			}
			var ce *turnback.ConflictError
			if errors.As(err, &ce) {
				if got := rt.read("a/x.txt"); got != inside && got != "x by the agent" {
					t.Fatalf("after a refused undo a/x.txt holds %q", got)
				}
				kept("after a refused undo")
				return
			}
			rt.do("undo", err)
			kept("after the undo")
			if rt.read("a/x.txt") != inside {
				_, err = rt.repo.Restore(rt.ctx, res.Checkpoint.String(), turnback.RestoreOptions{})
				rt.do("restore of the checkpoint", err)
				if got := rt.read("a/x.txt"); got != inside {
					t.Fatalf("the edit of a/x.txt is lost: the checkpoint gives %q, want %q", got, inside)
				}
				kept("after restore of the checkpoint")
			}
			if then != nil {
				then(t, rt, kept)
			}
		})
	}
}

// TestScopedUndoSnapIDStaysWhole: an undo's result is the tree of the
// snap before its turn. That snap's record stays whole: restore by the
// id snap printed puts back the whole folder, not the undo's paths
// alone (review of the scoped undo, bug 2).
func TestScopedUndoSnapIDStaysWhole(t *testing.T) {
	t.Parallel()
	rt := newRegressTree(t)
	for i := range 20 {
		rt.write(fmt.Sprintf("b/%d.txt", i), "b")
	}
	rt.write("a/x.txt", "x0")
	s0 := rt.snap()
	rt.write("a/x.txt", "x agent")
	rt.end()
	_, err := rt.repo.Undo(rt.ctx, 1, turnback.UndoOptions{})
	rt.do("undo", err)
	rt.write("b/1.txt", "user")
	res, err := rt.repo.Restore(rt.ctx, s0, turnback.RestoreOptions{})
	rt.do("restore", err)
	if res.Partial != nil {
		t.Errorf("restore %s: partial %+v", s0[:12], res.Partial)
	}
	if got := rt.read("b/1.txt"); got != "b" {
		t.Fatalf("restore %s (the id snap printed) left b/1.txt %q: restored only the undo's paths", s0[:12], got)
	}
}

// TestScopedCheckpointHandEditKept: a hand edit made between two
// undos, at a path the second undo does not read, is never lost by
// restore of the second undo's checkpoint: it stays, or restore's own
// checkpoint holds it (review of the scoped undo, bug 1).
func TestScopedCheckpointHandEditKept(t *testing.T) {
	t.Parallel()
	rt := newRegressTree(t)
	for i := range 20 {
		rt.write(fmt.Sprintf("b/%d.txt", i), "b")
		rt.write(fmt.Sprintf("c/%d.txt", i), "c")
	}
	rt.write("a/x.txt", "x0")
	rt.snap()
	rt.write("c/1.txt", "c agent")
	rt.end()
	rt.snap()
	rt.write("a/x.txt", "x agent")
	rt.end()
	_, err := rt.repo.Undo(rt.ctx, 1, turnback.UndoOptions{}) // turn 2: a/x.txt
	rt.do("undo", err)
	rt.write("a/x.txt", "fixed by hand")
	res, err := rt.repo.Undo(rt.ctx, 1, turnback.UndoOptions{}) // turn 1: c/1.txt
	rt.do("undo", err)
	back, err := rt.repo.Restore(rt.ctx, res.Checkpoint.String(), turnback.RestoreOptions{})
	rt.do("restore", err)
	if got := rt.read("a/x.txt"); got == "fixed by hand" {
		return
	}
	_, err = rt.repo.Restore(rt.ctx, back.Checkpoint.String(), turnback.RestoreOptions{})
	rt.do("restore of restore's checkpoint", err)
	if got := rt.read("a/x.txt"); got != "fixed by hand" {
		t.Fatalf("the hand edit is lost: a/x.txt %q", got)
	}
}
