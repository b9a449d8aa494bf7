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

// TestUndoCacheDirTagRemoved: the turn removes build/CACHEDIR.TAG, so
// build/ becomes captured. The undo cannot put back the tag (never
// captured), and must leave build/ as it is. (It says so only as
// "ignored in the state restored to; left as is", exit 0.)
func TestUndoCacheDirTagRemoved(t *testing.T) {
	t.Parallel()
	rt := newRegressTree(t)
	rt.write("build/CACHEDIR.TAG", "Signature: 8a477f597d28d172789f06886806bc55\n")
	rt.write("build/out.o", "object")
	rt.write("a", "a")
	rt.snap()
	rt.do("rm", os.Remove(rt.path("build/CACHEDIR.TAG")))
	rt.end()
	res, err := rt.repo.Undo(rt.ctx, 1, turnback.UndoOptions{})
	rt.do("undo", err)
	t.Logf("undo: %+v", res)
	if got := rt.read("build/out.o"); got != "object" {
		t.Fatalf("build/out.o holds %q", got)
	}
}

// TestUndoIgnoredIgnoreFileUserEdit: .ignore is itself ignored. The
// turn adds a rule for secret to it, so secret leaves the after-state.
// The user then edits secret, ignored now: its content is in no state.
// The undo must not overwrite it: the edit would be lost.
func TestUndoIgnoredIgnoreFileUserEdit(t *testing.T) {
	t.Parallel()
	rt := newRegressTree(t)
	rt.write(".gitignore", ".ignore\n")
	rt.write(".ignore", "")
	rt.write("secret", "v0")
	rt.snap()
	rt.write(".ignore", "secret\n")
	rt.end()
	rt.write("secret", "v1, the user's, in no state")
	res, err := rt.repo.Undo(rt.ctx, 1, turnback.UndoOptions{})
	t.Logf("undo: %+v, %v", res, err)
	if got := rt.read("secret"); got != "v1, the user's, in no state" {
		t.Fatalf("the user's edit of secret is lost: it holds %q", got)
	}
}
