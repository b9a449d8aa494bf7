package turnback_test

// Attacks on undo, redo and restore across a turn that changes the
// ignore rules.

import (
	"os"
	"testing"

	"github.com/turnback/turnback"
)

// TestUndoDeletedAndIgnored: the turn deletes x and adds a rule for
// it. The undo puts .gitignore back, so x is not ignored any more, and
// nothing is on disk at x: the undo must bring x back.
func TestUndoDeletedAndIgnored(t *testing.T) {
	t.Parallel()
	rt := newRegressTree(t)
	rt.write(".gitignore", "")
	rt.write("x", "x before the turn")
	rt.snap()
	rt.do("rm", os.Remove(rt.path("x")))
	rt.write(".gitignore", "x\n")
	rt.end()
	res, err := rt.repo.Undo(rt.ctx, 1, turnback.UndoOptions{})
	rt.do("undo", err)
	if got := rt.read("x"); got != "x before the turn" {
		t.Fatalf("undo: x holds %q; want it back (notes %+v)", got, res)
	}
}

// TestRestoreDeletedAndIgnored: restore of a state that holds x and
// ignores nothing, from a state whose rules ignore x, where x is
// absent: the restore must make the folder that state, x included.
func TestRestoreDeletedAndIgnored(t *testing.T) {
	t.Parallel()
	rt := newRegressTree(t)
	rt.write(".gitignore", "")
	rt.write("x", "x before")
	id := rt.snap()
	rt.do("rm", os.Remove(rt.path("x")))
	rt.write(".gitignore", "x\n")
	rt.snap()
	res, err := rt.repo.Restore(rt.ctx, id, turnback.RestoreOptions{})
	rt.do("restore", err)
	if got := rt.read("x"); got != "x before" {
		t.Fatalf("restore: x holds %q; want it back (%+v)", got, res)
	}
}

// TestUndoDeletedAndIgnoredUserMadeIt: as TestUndoDeletedAndIgnored,
// but the user made x again after the turn, ignored now: the undo must
// leave the user's x as it is, as it leaves any ignored path.
func TestUndoDeletedAndIgnoredUserMadeIt(t *testing.T) {
	t.Parallel()
	rt := newRegressTree(t)
	rt.write(".gitignore", "")
	rt.write("x", "x before the turn")
	rt.snap()
	rt.do("rm", os.Remove(rt.path("x")))
	rt.write(".gitignore", "x\n")
	rt.end()
	rt.write("x", "the user's, ignored")
	res, err := rt.repo.Undo(rt.ctx, 1, turnback.UndoOptions{})
	rt.do("undo", err)
	if got := rt.read("x"); got != "the user's, ignored" {
		t.Fatalf("undo: x holds %q; want the user's file left as is (%+v)", got, res)
	}
	if got := rt.read(".gitignore"); got != "" {
		t.Fatalf("undo: .gitignore holds %q, want it put back", got)
	}
}
