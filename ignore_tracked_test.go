package turnback_test

// A path git tracks is captured even when an ignore file's pattern
// matches it, as git never ignores what it tracks ("git add -f").

import (
	"os"
	"slices"
	"testing"

	"github.com/turnback/turnback"
)

// forcedTree is a repository whose .gitignore ignores *.cfg and build/,
// where git tracks a.cfg and build/keep.txt (added with -f); the user
// has build/other.o, untracked, so ignored.
func forcedTree(t *testing.T) *regressTree {
	t.Helper()
	rt := newRegressTree(t)
	rt.write(".gitignore", "*.cfg\nbuild/\n")
	rt.write("a.cfg", "tracked v0")
	rt.write("b", "b")
	rt.write("build/keep.txt", "keep v0")
	rt.write("build/other.o", "the user's object")
	runGit(t, rt.dir, "init", "-q")
	runGit(t, rt.dir, "add", "-f", "a.cfg", "build/keep.txt")
	return rt
}

// TestUndoForceAddedIgnoredFile: README: "What git tracks is always
// captured." a.cfg matches .gitignore but was added with git add -f:
// git tracks it. The turn edits it; the undo must put it back.
func TestUndoForceAddedIgnoredFile(t *testing.T) {
	t.Parallel()
	rt := newRegressTree(t)
	rt.write(".gitignore", "*.cfg\n")
	rt.write("a.cfg", "tracked v0")
	rt.write("b", "b")
	runGit(t, rt.dir, "init", "-q")
	runGit(t, rt.dir, "add", "-f", "a.cfg")
	rt.snap()
	rt.write("a.cfg", "the agent's")
	rt.end()
	res, err := rt.repo.Undo(rt.ctx, 1, turnback.UndoOptions{})
	rt.do("undo", err)
	if got := rt.read("a.cfg"); got != "tracked v0" {
		t.Fatalf("undo: a.cfg, tracked by git, holds %q (%+v)", got, res)
	}
}

// TestRedoForceAddedIgnoredFile: the redo of such a turn puts the
// agent's a.cfg back. The user rewrites what the undo left (as it
// left it), so the redo alone must write a.cfg.
func TestRedoForceAddedIgnoredFile(t *testing.T) {
	t.Parallel()
	rt := forcedTree(t)
	rt.snap()
	rt.write("a.cfg", "the agent's")
	rt.end()
	_, err := rt.repo.Undo(rt.ctx, 1, turnback.UndoOptions{})
	rt.do("undo", err)
	rt.write("a.cfg", "tracked v0")
	res, err := rt.repo.Redo(rt.ctx, 1, turnback.RedoOptions{})
	rt.do("redo", err)
	if got := rt.read("a.cfg"); got != "the agent's" {
		t.Fatalf("redo: a.cfg, tracked by git, holds %q (%+v)", got, res)
	}
}

// TestRestoreForceAddedIgnoredFile: restore of the state before the
// edits puts back the tracked file and the tracked file in the ignored
// directory, and leaves the untracked one there alone.
func TestRestoreForceAddedIgnoredFile(t *testing.T) {
	t.Parallel()
	rt := forcedTree(t)
	id := rt.snap()
	rt.write("a.cfg", "the agent's")
	rt.write("build/keep.txt", "the agent's keep")
	rt.write("build/other.o", "the agent's object")
	rt.end()
	res, err := rt.repo.Restore(rt.ctx, id, turnback.RestoreOptions{})
	rt.do("restore", err)
	for p, want := range map[string]string{"a.cfg": "tracked v0", "build/keep.txt": "keep v0", "build/other.o": "the agent's object"} {
		if got := rt.read(p); got != want {
			t.Errorf("restore: %s holds %q, want %q (%+v)", p, got, want, res)
		}
	}
}

// TestUndoTrackedInIgnoredDir: build/ is ignored, git tracks
// build/keep.txt. The turn edits it, edits the untracked build/other.o
// and makes build/new.o. The undo puts keep.txt back and leaves the
// untracked files, ignored, as they are.
func TestUndoTrackedInIgnoredDir(t *testing.T) {
	t.Parallel()
	rt := forcedTree(t)
	rt.snap()
	rt.write("build/keep.txt", "the agent's keep")
	rt.write("build/other.o", "the agent's object")
	rt.write("build/new.o", "new object")
	rt.end()
	res, err := rt.repo.Undo(rt.ctx, 1, turnback.UndoOptions{})
	rt.do("undo", err)
	for p, want := range map[string]string{"build/keep.txt": "keep v0", "build/other.o": "the agent's object", "build/new.o": "new object"} {
		if got := rt.read(p); got != want {
			t.Errorf("undo: %s holds %q, want %q (%+v)", p, got, want, res)
		}
	}
}

// TestUndoUntrackedAgain: git tracks a.cfg when the turn starts; during
// it, "git rm --cached" makes a.cfg untracked, so ignored again, and the
// agent rewrites it. The undo leaves the user's a.cfg alone (ignored now)
// and reverts b.
func TestUndoUntrackedAgain(t *testing.T) {
	t.Parallel()
	rt := forcedTree(t)
	rt.snap()
	runGit(t, rt.dir, "rm", "-q", "--cached", "a.cfg")
	rt.write("a.cfg", "now untracked")
	rt.write("b", "the agent's b")
	rt.end()
	res, err := rt.repo.Undo(rt.ctx, 1, turnback.UndoOptions{})
	rt.do("undo", err)
	if got := rt.read("a.cfg"); got != "now untracked" || rt.read("b") != "b" {
		t.Fatalf("undo: a.cfg holds %q, b %q (%+v)", got, rt.read("b"), res)
	}
}

// TestUndoRuleAddedOverTrackedDir: the turn adds "build/" to .gitignore,
// where git tracks build/keep.txt, and edits both build files. In the
// turn's after-state build/ is held for keep.txt alone: build/other.o,
// untracked, is ignored there, so the undo leaves it as it is (not "in
// the way": the undo is complete), and puts keep.txt back.
func TestUndoRuleAddedOverTrackedDir(t *testing.T) {
	t.Parallel()
	rt := newRegressTree(t)
	rt.write("build/keep.txt", "keep v0")
	rt.write("build/other.o", "object v0")
	runGit(t, rt.dir, "init", "-q")
	runGit(t, rt.dir, "add", "build/keep.txt")
	rt.snap()
	rt.write(".gitignore", "build/\n")
	rt.write("build/keep.txt", "the agent's keep")
	rt.write("build/other.o", "the agent's object")
	rt.end()
	res, err := rt.repo.Undo(rt.ctx, 1, turnback.UndoOptions{})
	rt.do("undo", err)
	for _, n := range res.NotRestorable {
		if !n.Kept {
			t.Errorf("undo: incomplete: %+v", res)
		}
	}
	for p, want := range map[string]string{".gitignore": "<open " + rt.path(".gitignore") + ": no such file or directory>",
		"build/keep.txt": "keep v0", "build/other.o": "the agent's object"} {
		if got := rt.read(p); got != want {
			t.Errorf("undo: %s holds %q, want %q (%+v)", p, got, want, res)
		}
	}
}

// TestRedoDeleteForceAdded: the turn deletes a.cfg and build/keep.txt,
// which git tracks though .gitignore ignores them; the index keeps them.
// The undo brings them back. The state the redo goes to lacks them,
// and its record says git tracked them (tracked_ignored): absent, not
// ignored. So the redo deletes them, and leaves build/other.o, ignored
// and untracked, and so build/, as they are.
func TestRedoDeleteForceAdded(t *testing.T) {
	t.Parallel()
	rt := forcedTree(t)
	rt.snap()
	rt.remove("a.cfg", "build/keep.txt")
	rt.end()
	res, err := rt.repo.Undo(rt.ctx, 1, turnback.UndoOptions{})
	rt.do("undo", err)
	if rt.read("a.cfg") != "tracked v0" || rt.read("build/keep.txt") != "keep v0" {
		t.Fatalf("undo: a.cfg %q, build/keep.txt %q (%+v)", rt.read("a.cfg"), rt.read("build/keep.txt"), res)
	}
	res, err = rt.repo.Redo(rt.ctx, 1, turnback.RedoOptions{})
	rt.do("redo", err)
	rt.wantDeleted(res, "redo", "a.cfg", "build/keep.txt")
}

// TestRestoreDeleteForceAdded: restore of the state at the end of
// such a turn, after an undo, deletes them as the redo does; so does a
// restore to a state where the whole tracked build/ was deleted, and
// the undo of that turn brings build/ back.
func TestRestoreDeleteForceAdded(t *testing.T) {
	t.Parallel()
	t.Run("files", func(t *testing.T) {
		t.Parallel()
		rt := forcedTree(t)
		rt.snap()
		rt.remove("a.cfg", "build/keep.txt")
		end := rt.end()
		_, err := rt.repo.Undo(rt.ctx, 1, turnback.UndoOptions{})
		rt.do("undo", err)
		res, err := rt.repo.Restore(rt.ctx, end, turnback.RestoreOptions{})
		rt.do("restore", err)
		rt.wantDeleted(res, "restore", "a.cfg", "build/keep.txt")
	})
	t.Run("directory", func(t *testing.T) {
		t.Parallel()
		rt := forcedTree(t)
		rt.snap()
		if err := os.RemoveAll(rt.path("build")); err != nil {
			t.Fatal(err)
		}
		end := rt.end()
		res, err := rt.repo.Undo(rt.ctx, 1, turnback.UndoOptions{})
		rt.do("undo", err)
		if rt.read("build/keep.txt") != "keep v0" {
			t.Fatalf("undo: build/keep.txt %q (%+v)", rt.read("build/keep.txt"), res)
		}
		rt.write("build/new.o", "the user's, made since")
		res, err = rt.repo.Restore(rt.ctx, end, turnback.RestoreOptions{})
		rt.do("restore", err)
		if _, err := os.Stat(rt.path("build/keep.txt")); !os.IsNotExist(err) || rt.read("build/new.o") != "the user's, made since" {
			t.Fatalf("restore: build/keep.txt %v, build/new.o %q (%+v)", err, rt.read("build/new.o"), res)
		}
	})
}

// TestRestoreListedOnlyTracked: at state S, c.cfg was tracked and
// deleted (S's record lists it), a.cfg there, ignored and untracked (S
// lacks it, and lists it not). Then c.cfg comes back and a.cfg is
// force-added. Restoring S deletes c.cfg and leaves a.cfg: the list
// speaks only for what git tracked at S.
func TestRestoreListedOnlyTracked(t *testing.T) {
	t.Parallel()
	rt := newRegressTree(t)
	rt.write(".gitignore", "*.cfg\n")
	rt.write("a.cfg", "the user's")
	rt.write("c.cfg", "tracked")
	rt.write("b", "b")
	runGit(t, rt.dir, "init", "-q")
	runGit(t, rt.dir, "add", "-f", "c.cfg")
	rt.remove("c.cfg")
	id := rt.snap()
	rt.write("c.cfg", "tracked, back")
	runGit(t, rt.dir, "add", "-f", "a.cfg")
	rt.write("b", "the agent's b")
	rt.end()
	res, err := rt.repo.Restore(rt.ctx, id, turnback.RestoreOptions{})
	rt.do("restore", err)
	if got := rt.read("a.cfg"); got != "the user's" || rt.read("b") != "b" || !slices.Contains(res.Deleted, "c.cfg") {
		t.Fatalf("restore: a.cfg holds %q, b %q, c.cfg %q (%+v)", got, rt.read("b"), rt.read("c.cfg"), res)
	}
}

// remove removes the files ps of the folder.
func (rt *regressTree) remove(ps ...string) {
	rt.t.Helper()
	for _, p := range ps {
		if err := os.Remove(rt.path(p)); err != nil {
			rt.t.Fatal(err)
		}
	}
}

// wantDeleted checks that the command (what) deleted exactly ps, and
// left build/other.o, untracked and ignored, as it was.
func (rt *regressTree) wantDeleted(res *turnback.RestoreResult, what string, ps ...string) {
	rt.t.Helper()
	for _, p := range ps {
		if _, err := os.Lstat(rt.path(p)); !os.IsNotExist(err) {
			rt.t.Errorf("%s: %s still there (%v)", what, p, err)
		}
	}
	if !slices.Equal(res.Deleted, ps) || len(res.NotRestorable) != 0 || rt.read("build/other.o") != "the user's object" {
		rt.t.Errorf("%s: deleted %q, want %q; build/other.o %q (%+v)", what, res.Deleted, ps, rt.read("build/other.o"), res)
	}
}

// TestUndoForceAddedDuringTurn: a.cfg, the user's, is ignored and
// untracked when the turn starts; during the turn it is added with git
// add -f. The turn's before-state lacks it because it was ignored then,
// so the undo must not delete it.
func TestUndoForceAddedDuringTurn(t *testing.T) {
	t.Parallel()
	rt := newRegressTree(t)
	rt.write(".gitignore", "*.cfg\n")
	rt.write("a.cfg", "the user's")
	rt.write("b", "b")
	runGit(t, rt.dir, "init", "-q")
	rt.snap()
	runGit(t, rt.dir, "add", "-f", "a.cfg")
	rt.write("b", "the agent's b")
	rt.end()
	res, err := rt.repo.Undo(rt.ctx, 1, turnback.UndoOptions{})
	rt.do("undo", err)
	if got := rt.read("a.cfg"); got != "the user's" || rt.read("b") != "b" {
		t.Fatalf("undo: a.cfg holds %q, b %q (%+v)", got, rt.read("b"), res)
	}
}

// TestRestoreStateWithIgnoredFile: at state S, a.cfg existed, ignored
// and untracked, so S lacks it. It is added with git add -f later.
// Restoring S must not delete it: it was there, ignored, in S.
func TestRestoreStateWithIgnoredFile(t *testing.T) {
	t.Parallel()
	rt := newRegressTree(t)
	rt.write(".gitignore", "*.cfg\n")
	rt.write("a.cfg", "the user's")
	rt.write("b", "b")
	runGit(t, rt.dir, "init", "-q")
	id := rt.snap()
	runGit(t, rt.dir, "add", "-f", "a.cfg")
	rt.write("b", "the agent's b")
	rt.end()
	res, err := rt.repo.Restore(rt.ctx, id, turnback.RestoreOptions{})
	rt.do("restore", err)
	if got := rt.read("a.cfg"); got != "the user's" || rt.read("b") != "b" {
		t.Fatalf("restore: a.cfg holds %q, b %q (%+v)", got, rt.read("b"), res)
	}
}
