package turnback_test

// A path a restore makes (absent, ignored only in the state it starts
// from) inside a directory that state skipped: the planned result had
// no directory for it, and the command failed with "manifest: edit
// "x": parent directory does not exist", changing nothing.

import (
	"os"
	"testing"

	"github.com/turnback/turnback"
)

// skippedParentTree: x/ holds a and b, nothing ignored; snap (returned).
// Then .gitignore ignores x/ and x/a is deleted.
func skippedParentTree(t *testing.T, turn bool) (*regressTree, string) {
	rt := newRegressTree(t)
	rt.write(".gitignore", "")
	rt.write("x/a", "a0")
	rt.write("x/b", "b0")
	rt.write("c", "c")
	id := rt.snap()
	rt.write(".gitignore", "x/\n")
	rt.do("rm", os.Remove(rt.path("x/a")))
	if turn {
		rt.end()
	} else {
		rt.snap()
	}
	return rt, id
}

// TestRestoreMakesInSkippedDir: restore of the first state puts back
// .gitignore and x/a; x/b stays; the result is the folder it left.
func TestRestoreMakesInSkippedDir(t *testing.T) {
	t.Parallel()
	rt, id := skippedParentTree(t, false)
	res, err := rt.repo.Restore(rt.ctx, id, turnback.RestoreOptions{})
	rt.do("restore", err)
	if a, b, g := rt.read("x/a"), rt.read("x/b"), rt.read(".gitignore"); a != "a0" || b != "b0" || g != "" {
		t.Fatalf("restore: x/a %q, x/b %q, .gitignore %q", a, b, g)
	}
	if now := rt.snap(); now != res.Result.String() {
		t.Errorf("restore's result %s, but the folder it left is %s", res.Result.Short(), now[:12])
	}
}

// TestUndoMakesInSkippedDir: the turn deleted x/a and ignored x/; its
// undo (and its dry run) puts both back, and redo takes them away again.
func TestUndoMakesInSkippedDir(t *testing.T) {
	t.Parallel()
	rt, _ := skippedParentTree(t, true)
	if _, err := rt.repo.Undo(rt.ctx, 1, turnback.UndoOptions{DryRun: true}); err != nil {
		t.Fatalf("undo --dry-run: %v", err)
	}
	res, err := rt.repo.Undo(rt.ctx, 1, turnback.UndoOptions{})
	rt.do("undo", err)
	if a, b, g := rt.read("x/a"), rt.read("x/b"), rt.read(".gitignore"); a != "a0" || b != "b0" || g != "" {
		t.Fatalf("undo: x/a %q, x/b %q, .gitignore %q", a, b, g)
	}
	st, err := rt.repo.Status(rt.ctx)
	rt.do("status", err)
	if st.Base != res.Result || len(st.Changes) != 0 {
		t.Errorf("status after the undo: base %s (result %s), changes %v", st.Base.Short(), res.Result.Short(), st.Changes)
	}
	if _, err := rt.repo.Redo(rt.ctx, 1, turnback.RedoOptions{DryRun: true}); err != nil {
		t.Fatalf("redo --dry-run: %v", err)
	}
	_, err = rt.repo.Redo(rt.ctx, 1, turnback.RedoOptions{})
	rt.do("redo", err)
	if g := rt.read(".gitignore"); g != "x/\n" {
		t.Fatalf("redo: .gitignore %q", g)
	}
}

// TestRedoMakesInSkippedDir: the turn un-ignores x/ and writes x/a;
// the undo ignores x/ again (x/a stays: ignored where the undo goes);
// the user deletes x/a. The redo (and its dry run) un-ignores x/ and
// makes x/a again, in x/, which the state the redo starts from skips.
func TestRedoMakesInSkippedDir(t *testing.T) {
	t.Parallel()
	rt := newRegressTree(t)
	rt.write(".gitignore", "x/\n")
	rt.write("x/b", "b0")
	rt.write("c", "c")
	rt.snap()
	rt.write(".gitignore", "")
	rt.write("x/a", "a1")
	rt.end()
	_, err := rt.repo.Undo(rt.ctx, 1, turnback.UndoOptions{})
	rt.do("undo", err)
	rt.do("rm", os.Remove(rt.path("x/a")))
	if _, err := rt.repo.Redo(rt.ctx, 1, turnback.RedoOptions{DryRun: true}); err != nil {
		t.Fatalf("redo --dry-run: %v", err)
	}
	res, err := rt.repo.Redo(rt.ctx, 1, turnback.RedoOptions{})
	rt.do("redo", err)
	if a, b, g := rt.read("x/a"), rt.read("x/b"), rt.read(".gitignore"); a != "a1" || b != "b0" || g != "" {
		t.Fatalf("redo: x/a %q, x/b %q, .gitignore %q", a, b, g)
	}
	if e := rt.entryIn(res.Result, "x/b"); e == nil {
		t.Errorf("redo's result %s lacks x/b", res.Result.Short())
	}
}
