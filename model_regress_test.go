package turnback_test

// Regression tests for bugs found by the model test (model_test.go), each
// minimised to a few deterministic steps. While a bug is open its entry in
// modelKnownBugs keeps the model test from tripping over it again.

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/turnback/turnback"
)

type regressTree struct {
	t     *testing.T
	ctx   context.Context
	dir   string
	store string
	repo  *turnback.Repo
}

func newRegressTree(t *testing.T) *regressTree {
	t.Helper()
	rt := &regressTree{t: t, ctx: t.Context(), dir: t.TempDir(), store: t.TempDir()}
	r, err := turnback.Open(rt.ctx, rt.dir, turnback.Options{Store: rt.store, LockWait: -1})
	if err != nil {
		t.Fatal(err)
	}
	rt.repo = r
	t.Cleanup(func() { r.Close() })
	return rt
}

func (rt *regressTree) path(p string) string { return filepath.Join(rt.dir, filepath.FromSlash(p)) }

func (rt *regressTree) write(p, data string) {
	rt.t.Helper()
	if err := os.MkdirAll(filepath.Dir(rt.path(p)), 0o755); err != nil {
		rt.t.Fatal(err)
	}
	if err := os.WriteFile(rt.path(p), []byte(data), 0o644); err != nil {
		rt.t.Fatal(err)
	}
}

func (rt *regressTree) do(what string, err error) {
	rt.t.Helper()
	if err != nil {
		rt.t.Fatalf("%s: %v", what, err)
	}
}

func (rt *regressTree) snap() string {
	rt.t.Helper()
	res, err := rt.repo.Snap(rt.ctx, "")
	rt.do("snap", err)
	return res.Snapshot.String()
}

func (rt *regressTree) end() string {
	rt.t.Helper()
	res, err := rt.repo.End(rt.ctx)
	rt.do("end", err)
	return res.Snapshot.String()
}

// want checks the whole folder against a model tree.
func (rt *regressTree) want(want mtree) {
	rt.t.Helper()
	got, err := readDisk(rt.dir)
	if err != nil {
		rt.t.Fatal(err)
	}
	if got.canon() != want.canon() {
		rt.t.Fatalf("folder differs from what it must be:\n%s", diffTrees(want, got))
	}
}

// Bug (found by the model test, fixed meanwhile in bec7b1f, "manifest.Edit
// ignores changes below a path replaced by a file or symlink"):
// manifest.Edit failed with `changes below a file` / `changes below a
// symlink` when the changes of a restore turned a directory that has
// contents into a file or symlink: the removals of the directory's
// contents are changes below a path whose new entry is not a directory.
// Undo of a turn that replaced a file by a non-empty directory, redo of a
// turn that replaced a non-empty directory by a file or symlink, and
// restore of such a state all failed this way. Kept as a regression test.
func TestRegressUndoFileBecameDirectory(t *testing.T) {
	t.Parallel()
	t.Run("undo", func(t *testing.T) {
		rt := newRegressTree(t)
		rt.write("f", "x")
		rt.snap()
		rt.do("rm", os.Remove(rt.path("f")))
		rt.write("f/a", "y")
		rt.end()
		_, err := rt.repo.Undo(rt.ctx, 1, turnback.UndoOptions{})
		rt.do("undo", err)
		rt.want(mtree{"f": {kind: mFile, mode: 0o644, data: "x"}})
	})
	t.Run("redo", func(t *testing.T) {
		rt := newRegressTree(t)
		rt.write("d/a", "y")
		rt.snap()
		rt.do("rm", os.RemoveAll(rt.path("d")))
		rt.do("symlink", os.Symlink("elsewhere", rt.path("d")))
		rt.end()
		_, err := rt.repo.Undo(rt.ctx, 1, turnback.UndoOptions{})
		rt.do("undo", err)
		_, err = rt.repo.Redo(rt.ctx, 1, turnback.RedoOptions{})
		rt.do("redo", err)
		rt.want(mtree{"d": {kind: mLink, data: "elsewhere"}})
	})
	t.Run("restore", func(t *testing.T) {
		rt := newRegressTree(t)
		rt.write("f", "x")
		id := rt.snap()
		rt.do("rm", os.Remove(rt.path("f")))
		rt.write("f/a", "y")
		_, err := rt.repo.Restore(rt.ctx, id, turnback.RestoreOptions{})
		rt.do("restore", err)
		rt.want(mtree{"f": {kind: mFile, mode: 0o644, data: "x"}})
	})
}

// Bug: an undo (or redo) that must bring back a path whose parent
// directory is gone fails with `manifest: edit "d": parent directory does
// not exist`, without any conflict and also with force. Here the turn
// deleted d/x, then the user deleted d: undoing the turn has no conflict
// (d/x is absent, as the turn left it) and must bring d/x back; the undo
// cannot be done at all. undo.go (Repo.Undo, Repo.redoOne via
// actionsFor) plans actions only for the paths the turns changed and never
// for their ancestors, and neither manifest.Edit nor restore.NewPlan /
// restore.place creates a missing parent (place would fail too: the staged
// file is renamed to "d/x" in the work tree root).
//
// When the user replaced d by a symlink instead, the same undo failed
// with `changes below a symlink`; since 6cc3808 restore.NewPlan blocks a
// create below a symlink or file on disk, so d/x is listed as not
// restorable and the symlink is left alone and never followed (the
// subtest below guards that: e must hold only e/keep).
func TestRegressUndoParentDirectoryDeleted(t *testing.T) {
	t.Parallel()
	t.Run("deleted", func(t *testing.T) {
		rt := newRegressTree(t)
		rt.write("d/x", "x")
		rt.write("d/y", "y")
		rt.do("chmod", os.Chmod(rt.path("d"), 0o750))
		rt.snap()
		rt.do("rm", os.Remove(rt.path("d/x")))
		rt.end()
		rt.do("rm -r", os.RemoveAll(rt.path("d")))
		res, err := rt.repo.Undo(rt.ctx, 1, turnback.UndoOptions{})
		rt.do("undo", err)
		if len(res.Conflicts) > 0 {
			t.Errorf("conflicts %v; the undo has none", res.Conflicts)
		}
		// d comes back as the turn's before-state had it, with only
		// the path the turn changed (the user deleted d/y).
		rt.want(mtree{
			"d":   {kind: mDir, mode: 0o750},
			"d/x": {kind: mFile, mode: 0o644, data: "x"},
		})
	})
	t.Run("replaced-by-symlink", func(t *testing.T) {
		rt := newRegressTree(t)
		rt.write("d/x", "x")
		rt.write("d/y", "y")
		rt.write("e/keep", "keep")
		rt.snap()
		rt.do("rm", os.Remove(rt.path("d/x")))
		rt.end()
		rt.do("rm -r", os.RemoveAll(rt.path("d")))
		rt.do("symlink", os.Symlink("e", rt.path("d")))
		res, err := rt.repo.Undo(rt.ctx, 1, turnback.UndoOptions{Force: true})
		rt.do("undo", err)
		var nr []string
		for _, n := range res.NotRestorable {
			nr = append(nr, n.Path)
		}
		if !slices.Contains(nr, "d/x") {
			t.Errorf("not restorable %v, want d/x listed", res.NotRestorable)
		}
		rt.want(mtree{
			"d":      {kind: mLink, data: "e"},
			"e":      {kind: mDir, mode: 0o755},
			"e/keep": {kind: mFile, mode: 0o644, data: "keep"},
		})
	})
}

// Bug: undo (and redo) report a conflict, and refuse, for a path they
// would not change: the turn changed x and y, the user put x back by
// hand, and undo must now revert y alone. The conflict rule (package doc,
// invariant 4) names only a path that undo would change, whose content
// differs from what the newest undone turn that changed it left there.
// Repo.actionsFor (undo.go) checks every path the turns changed for a conflict before it
// skips the paths that already hold their target (sameState(cur, want)),
// so x is listed as "modified since" and nothing is undone; the
// conflict check belongs after that skip.
func TestRegressUndoConflictOnPathItWouldNotChange(t *testing.T) {
	t.Parallel()
	rt := newRegressTree(t)
	rt.write("x", "1")
	rt.write("y", "1")
	rt.snap()
	rt.write("x", "2")
	rt.write("y", "2")
	rt.end()
	rt.write("x", "1") // the user reverts x by hand
	res, err := rt.repo.Undo(rt.ctx, 1, turnback.UndoOptions{})
	if err != nil {
		t.Fatalf("undo: %v (conflicts %v)", err, res.Conflicts)
	}
	if len(res.Conflicts) > 0 {
		t.Errorf("conflicts %v, want none", res.Conflicts)
	}
	rt.want(mtree{
		"x": {kind: mFile, mode: 0o644, data: "1"},
		"y": {kind: mFile, mode: 0o644, data: "1"},
	})
}

// TestRegressBlockedParentNotReported: undo must bring back c/b/a, whose
// parent c is now a symlink. c/b, recreated only for c/b/a, is blocked
// too, but only the paths the turn changed are reported as not
// restorable (found with model seed 514451579974788323).
func TestRegressBlockedParentNotReported(t *testing.T) {
	t.Parallel()
	rt := newRegressTree(t)
	rt.write("a", "x")
	rt.do("mkdir", os.MkdirAll(rt.path("c/b"), 0o755))
	rt.do("symlink", os.Symlink("..", rt.path("c/b/a")))
	rt.snap()
	rt.do("remove", os.Remove(rt.path("a")))
	rt.do("remove", os.Remove(rt.path("c/b/a")))
	rt.do("symlink", os.Symlink("a/b", rt.path("c/b/a")))
	rt.end()
	// Outside the turn: a becomes a directory holding something, c a
	// symlink.
	rt.do("mkdir", os.MkdirAll(rt.path("a/a-"), 0o700))
	rt.do("remove", os.RemoveAll(rt.path("c")))
	rt.do("symlink", os.Symlink("elsewhere", rt.path("c")))
	res, err := rt.repo.Undo(rt.ctx, 1, turnback.UndoOptions{Force: true})
	rt.do("undo --force", err)
	var got []string
	for _, n := range res.NotRestorable {
		got = append(got, n.Path)
	}
	if !slices.Equal(got, []string{"a", "c/b/a"}) {
		t.Fatalf("not restorable: %+v; want a and c/b/a only", res.NotRestorable)
	}
}

// Model bug (found with model seed 6463412507734977101): a forced redo of
// several turns reports as overwritten ("conflicts") only the conflicting
// paths each turn's redo really changed (README: with --force,
// `conflicts` lists only paths really overwritten). The model filtered
// the conflicts of all the redone turns by the changes of all of them, so
// it expected c/b here: turn 2's redo finds c/b deleted since its undo (a
// conflict) but cannot bring it back, since c is the user's symlink again
// (turn 1's redo put back the state its forced undo replaced), so c/b is
// not restorable and nothing is overwritten there; turn 1's redo deleted
// c/b without a conflict (the c/b its undo left). The implementation was
// right: nothing is lost (the redo's checkpoint holds what it replaced,
// the user's symlink is back) and the redo treats c/b as the undo of the
// replaced-by-symlink case of TestRegressUndoParentDirectoryDeleted does.
// The subtest "model" runs the same steps through the model test's
// harness, which failed before the fix.
func TestRegressRedoConflictBlockedInLaterTurn(t *testing.T) {
	t.Parallel()
	t.Run("api", func(t *testing.T) {
		rt := newRegressTree(t)
		rt.write("c/b", "1")
		rt.snap() // turn 1: c 0700, c/b "2"
		rt.do("chmod", os.Chmod(rt.path("c"), 0o700))
		rt.write("c/b", "2")
		rt.snap() // turn 2: c/b "3"
		rt.write("c/b", "3")
		rt.end()
		_, err := rt.repo.Undo(rt.ctx, 1, turnback.UndoOptions{})
		rt.do("undo turn 2", err)
		// Outside the turns: the user replaces the directory c by a symlink.
		rt.do("rm -r", os.RemoveAll(rt.path("c")))
		rt.do("symlink", os.Symlink("elsewhere", rt.path("c")))
		res, err := rt.repo.Undo(rt.ctx, 1, turnback.UndoOptions{Force: true})
		rt.do("undo --force turn 1", err)
		if got := notePaths(res.Conflicts); !slices.Equal(got, []string{"c", "c/b"}) {
			t.Fatalf("undo --force: conflicts %v, want c and c/b (both overwritten)", res.Conflicts)
		}
		rt.want(mtree{
			"c":   {kind: mDir, mode: 0o755},
			"c/b": {kind: mFile, mode: 0o644, data: "1"},
		})
		res, err = rt.repo.Redo(rt.ctx, 2, turnback.RedoOptions{Force: true})
		rt.do("redo --force", err)
		if res.Turns != 2 {
			t.Errorf("redo: %d turns, want 2", res.Turns)
		}
		if len(res.Conflicts) > 0 {
			t.Errorf("redo: conflicts %v, want none (nothing the user made is overwritten)", res.Conflicts)
		}
		if !slices.Equal(res.Restored, []string{"c"}) || !slices.Equal(res.Deleted, []string{"c/b"}) || len(res.Created) > 0 {
			t.Errorf("redo: restored %q deleted %q created %q, want c restored (the user's symlink) and c/b deleted", res.Restored, res.Deleted, res.Created)
		}
		want := []turnback.PathNote{{Path: "c/b", Reason: "c on disk is a symlink, not a directory"}}
		if !slices.Equal(res.NotRestorable, want) {
			t.Errorf("redo: not restorable %+v, want %+v", res.NotRestorable, want)
		}
		rt.want(mtree{"c": {kind: mLink, data: "elsewhere"}})
		// What the redo replaced is in its checkpoint.
		_, err = rt.repo.Restore(rt.ctx, res.Checkpoint.String(), turnback.RestoreOptions{})
		rt.do("restore the checkpoint", err)
		rt.want(mtree{
			"c":   {kind: mDir, mode: 0o755},
			"c/b": {kind: mFile, mode: 0o644, data: "1"},
		})
	})
	t.Run("model", func(t *testing.T) {
		runScripted(t,
			func(h *harness) {
				h.diskMkdir("c", 0o755)
				h.diskWrite("c/b", "1", 0o644, false)
				h.logf("user: c/b %v", h.fs["c/b"])
			},
			func(h *harness) { h.apiSnap() },
			func(h *harness) {
				h.must(os.Chmod(h.abs("c"), 0o700), "chmod c")
				h.fs["c"] = mnode{kind: mDir, mode: 0o700}
				h.diskWrite("c/b", "2", 0o644, false)
				h.logf("user: chmod c 0700, c/b %v", h.fs["c/b"])
			},
			func(h *harness) { h.apiSnap() },
			func(h *harness) { h.diskWrite("c/b", "3", 0o644, false); h.logf("user: c/b %v", h.fs["c/b"]) },
			func(h *harness) { h.apiEnd() },
			func(h *harness) { h.apiUndo(1, false) },
			func(h *harness) {
				h.diskRemove("c")
				h.diskSymlink("c", "elsewhere")
				h.logf("user: replace the directory c by %v", h.fs["c"])
			},
			func(h *harness) { h.apiUndo(1, true) },
			func(h *harness) { h.apiRedo(2, true) },
		)
	})
}

// runScripted runs steps through the model test's harness: an API step
// checks its result against the model, and after every step the folder
// and the session's stacks are compared with the model.
func runScripted(t *testing.T, steps ...func(h *harness)) {
	t.Helper()
	h := newHarness(t, 1, testing.Verbose(), t.TempDir())
	if err := os.MkdirAll(h.dir, 0o755); err != nil {
		t.Fatal(err)
	}
	defer func() {
		if h.repo != nil {
			h.repo.Close()
		}
		if r := recover(); r != nil {
			f, ok := r.(modelFailure)
			if !ok {
				panic(r)
			}
			t.Fatalf("step %d: %s\nhistory:\n%s", h.step, f.msg, strings.Join(h.hist, "\n"))
		}
	}()
	h.open()
	for i, step := range steps {
		h.step = i + 1
		step(h)
		h.check()
	}
	h.close()
}

// TestRegressRedoClosedTurnIsASnapshot: a redo that finds an open turn
// which changed the folder closes it (and so has nothing to redo); the
// closed turn's after-state is a snapshot like any end's, which restore
// finds by its id. (Found by the model test: "unknown snapshot id".)
func TestRegressRedoClosedTurnIsASnapshot(t *testing.T) {
	rt := newRegressTree(t)
	rt.write("a.txt", "one\n")
	rt.snap()
	rt.write("b.txt", "turn 1\n")
	rt.end()
	_, err := rt.repo.Undo(rt.ctx, 1, turnback.UndoOptions{})
	rt.do("undo", err)
	rt.snap()
	rt.write("a.txt", "the user's edit\n")
	res, err := rt.repo.Redo(rt.ctx, 1, turnback.RedoOptions{})
	rt.do("redo", err)
	if !res.Nothing {
		t.Fatalf("redo after a turn that changed the folder: %+v, want nothing to redo", res)
	}
	turns, _, err := rt.repo.Turns(rt.ctx)
	rt.do("turns", err)
	if len(turns) != 1 || turns[0].Open() || turns[0].ClosedBy != "redo" {
		t.Fatalf("turns after the redo: %+v, want one turn closed by redo", turns)
	}
	rt.write("a.txt", "later\n")
	_, err = rt.repo.Restore(rt.ctx, turns[0].After.String(), turnback.RestoreOptions{})
	rt.do("restore the closed turn's after-state", err)
	rt.want(mtree{"a.txt": {kind: mFile, mode: 0o644, data: "the user's edit\n"}})
}
