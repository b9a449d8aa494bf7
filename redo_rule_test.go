package turnback_test

// The redo rule: the redo stack survives turns that change nothing (a
// question asked after an undo) and is cleared when a turn that changed
// the folder closes, whatever closes it (end, the next snap, undo, redo).

import (
	"os"
	"testing"

	"github.com/turnback/turnback"
)

func (rt *regressTree) redoable() int {
	rt.t.Helper()
	_, redo, err := rt.repo.Turns(rt.ctx)
	rt.do("turns", err)
	return len(redo)
}

func (rt *regressTree) read(p string) string {
	rt.t.Helper()
	data, err := os.ReadFile(rt.path(p))
	if err != nil {
		return "<" + err.Error() + ">"
	}
	return string(data)
}

// undoneTree has one turn (a.txt "one" -> "two") undone.
func undoneTree(t *testing.T) *regressTree {
	rt := newRegressTree(t)
	rt.write("a.txt", "one")
	rt.snap()
	rt.write("a.txt", "two")
	rt.end()
	res, err := rt.repo.Undo(rt.ctx, 1, turnback.UndoOptions{})
	rt.do("undo", err)
	if res.Turns != 1 || rt.read("a.txt") != "one" || rt.redoable() != 1 {
		t.Fatalf("undo: %d turns, a.txt %q, %d to redo", res.Turns, rt.read("a.txt"), rt.redoable())
	}
	return rt
}

func TestRedoSurvivesTurnsThatChangeNothing(t *testing.T) {
	for _, tc := range []struct {
		name  string
		steps func(rt *regressTree)
	}{
		{"snap and end", func(rt *regressTree) { rt.snap(); rt.end() }},
		{"snap, snap, end", func(rt *regressTree) { rt.snap(); rt.snap(); rt.end() }},
		{"open turn", func(rt *regressTree) { rt.snap() }},
		{"a change put back within the turn", func(rt *regressTree) {
			rt.snap()
			rt.write("b.txt", "tmp")
			if err := os.Remove(rt.path("b.txt")); err != nil {
				rt.t.Fatal(err)
			}
			rt.end()
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rt := undoneTree(t)
			tc.steps(rt)
			if n := rt.redoable(); n != 1 {
				t.Fatalf("after a turn that changed nothing: %d turns to redo, want 1", n)
			}
			res, err := rt.repo.Redo(rt.ctx, 1, turnback.RedoOptions{})
			rt.do("redo", err)
			if res.Nothing || res.Turns != 1 || rt.read("a.txt") != "two" {
				t.Fatalf("redo: nothing %v, %d turns, a.txt %q; want the turn back (two)", res.Nothing, res.Turns, rt.read("a.txt"))
			}
			turns, redo, err := rt.repo.Turns(rt.ctx)
			rt.do("turns", err)
			if len(turns) != 1 || turns[0].N != 1 || len(redo) != 0 {
				t.Fatalf("after the redo: turns %v, redo %v; want turn 1 back on the undo stack", turns, redo)
			}
		})
	}
}

func TestRedoClearedByATurnThatChangesTheFolder(t *testing.T) {
	for _, tc := range []struct {
		name  string
		steps func(rt *regressTree)
	}{
		{"closed by end", func(rt *regressTree) { rt.snap(); rt.write("b.txt", "new"); rt.end() }},
		{"closed by the next snap", func(rt *regressTree) { rt.snap(); rt.write("b.txt", "new"); rt.snap() }},
		{"closed by the redo", func(rt *regressTree) { rt.snap(); rt.write("b.txt", "new") }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rt := undoneTree(t)
			tc.steps(rt)
			res, err := rt.repo.Redo(rt.ctx, 1, turnback.RedoOptions{})
			rt.do("redo", err)
			if !res.Nothing || rt.read("a.txt") != "one" || rt.read("b.txt") != "new" {
				t.Fatalf("redo: nothing %v, a.txt %q, b.txt %q; want nothing to redo and the folder as the new turn left it", res.Nothing, rt.read("a.txt"), rt.read("b.txt"))
			}
			if n := rt.redoable(); n != 0 {
				t.Fatalf("%d turns to redo, want none", n)
			}
			// Undo now undoes the new turn, not the redone one.
			_, err = rt.repo.Undo(rt.ctx, 1, turnback.UndoOptions{})
			rt.do("undo", err)
			if _, err := os.Lstat(rt.path("b.txt")); !os.IsNotExist(err) || rt.read("a.txt") != "one" {
				t.Fatalf("undo of the new turn: b.txt %v, a.txt %q; want b.txt gone, a.txt one", err, rt.read("a.txt"))
			}
		})
	}
}
