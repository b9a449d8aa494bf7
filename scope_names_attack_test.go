package turnback_test

import (
	"fmt"
	"os"
	"testing"

	"github.com/turnback/turnback"
	"github.com/turnback/turnback/internal/testtier"
)

// namesAttackTree is a folder whose a/ holds 300 files and a closed
// turn that rewrote a/x.txt, deleted a/y.txt and made a/z.txt: an undo
// of it reads a/ by name (walker.Options.Names), its other files unread.
// The fast tier's a/ holds 40: reading by name does not depend on the
// count, and each restore step makes its own folder.
func namesAttackTree(t *testing.T) *regressTree {
	rt := newRegressTree(t)
	n := 300
	if testtier.Short() {
		n = 40
	}
	for i := range n {
		rt.write(fmt.Sprintf("a/%d.txt", i), "a")
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

// TestUndoByNameEditsDuringUndo: edits made at every step of an undo
// that reads a/ by name, to a turn path and beside it in a/ (a file
// edited, one created, one deleted), are never lost: those beside stay
// through the undo and through restore of its checkpoint, and the next
// snap holds them; the edit of the turn path is in its file or,
// overwritten, in the checkpoint.
func TestUndoByNameEditsDuringUndo(t *testing.T) {
	editsDuringUndo(t, namesAttackTree, func(t *testing.T, rt *regressTree, k int) func(string) {
		beside := fmt.Sprintf("beside at step %d", k)
		rt.write("a/7.txt", beside)
		rt.write("a/user.txt", beside)
		must(t, os.Remove(rt.path("a/8.txt")))
		return func(when string) {
			t.Helper()
			if got := rt.read("a/7.txt"); got != beside {
				t.Fatalf("%s a/7.txt holds %q, want %q", when, got, beside)
			}
			if got := rt.read("a/user.txt"); got != beside {
				t.Fatalf("%s a/user.txt holds %q, want %q", when, got, beside)
			}
			if _, err := os.Lstat(rt.path("a/8.txt")); !os.IsNotExist(err) {
				t.Fatalf("%s a/8.txt: %v, want none (deleted by the user)", when, err)
			}
		}
	}, func(t *testing.T, rt *regressTree, kept func(string)) {
		// The next snap reads a/ whole: restore of it brings the edits
		// beside back.
		s := rt.snap()
		rt.write("a/7.txt", "later")
		must(t, os.Remove(rt.path("a/user.txt")))
		_, err := rt.repo.Restore(rt.ctx, s, turnback.RestoreOptions{})
		rt.do("restore of the snap", err)
		kept("after restore of the next snap")
	})
}
