package turnback_test

import (
	"fmt"
	"testing"

	"github.com/turnback/turnback"
)

// TestRedoDeleteForceAddedTwice: undo and redo of a turn that deleted
// files git tracks though a pattern ignores them, twice. The first
// redo's result is the turn's end again; its record must keep saying
// the files are absent, not ignored, so the second redo deletes them
// too.
func TestRedoDeleteForceAddedTwice(t *testing.T) {
	t.Parallel()
	rt := forcedTree(t)
	rt.snap()
	rt.remove("a.cfg", "build/keep.txt")
	rt.end()
	for round := range 3 {
		_, err := rt.repo.Undo(rt.ctx, 1, turnback.UndoOptions{})
		rt.do("undo", err)
		if rt.read("a.cfg") != "tracked v0" || rt.read("build/keep.txt") != "keep v0" {
			t.Fatalf("round %d undo: a.cfg %q, build/keep.txt %q", round, rt.read("a.cfg"), rt.read("build/keep.txt"))
		}
		res, err := rt.repo.Redo(rt.ctx, 1, turnback.RedoOptions{})
		rt.do("redo", err)
		rt.wantDeleted(res, fmt.Sprintf("round %d redo", round), "a.cfg", "build/keep.txt")
	}
}
