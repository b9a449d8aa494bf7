package turnback_test

// Attacks on the tracked_ignored list of a state's record (review45).
// A restore's result, and the capture memo that makes it the base of
// the next scoped capture, get the list of the state the restore
// started from. Intersected with later captures of the same tree, that
// list makes a redo or restore leave files git tracks that the state
// lacks. The last two tests check what held: an index change after
// the undo, and a crash of the redo.

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/turnback/turnback"
)

// forcedSubTree is forcedTree with sub/c.cfg, tracked though .gitignore
// ignores it, and sub/d: sub/ lies off the path of a scope holding b.
func forcedSubTree(t *testing.T) *regressTree {
	t.Helper()
	rt := forcedTree(t)
	rt.write("sub/c.cfg", "c v0")
	rt.write("sub/d", "d")
	runGit(t, rt.dir, "add", "-f", "sub/c.cfg")
	return rt
}

// TestRedoAfterUserEditDeletesForceAdded: a turn deletes a.cfg and
// build/keep.txt, tracked though ignored. After the undo the user makes
// c, so the redo's result is a tree no capture made; its record gets
// the list of the redo's start, where both files were there: empty.
// The next undo's checkpoint is that tree: its capture's list, merged
// with the record's (intersection), is empty too. So the second redo
// left both files, "ignored in the state restored to".
func TestRedoAfterUserEditDeletesForceAdded(t *testing.T) {
	t.Parallel()
	rt := forcedTree(t)
	rt.snap()
	rt.remove("a.cfg", "build/keep.txt")
	rt.end()
	_, err := rt.repo.Undo(rt.ctx, 1, turnback.UndoOptions{})
	rt.do("undo", err)
	rt.write("c", "the user's c")
	res, err := rt.repo.Redo(rt.ctx, 1, turnback.RedoOptions{})
	rt.do("redo", err)
	rt.wantDeleted(res, "redo", "a.cfg", "build/keep.txt")
	_, err = rt.repo.Undo(rt.ctx, 1, turnback.UndoOptions{})
	rt.do("undo", err)
	res, err = rt.repo.Redo(rt.ctx, 1, turnback.RedoOptions{})
	rt.do("redo", err)
	rt.wantDeleted(res, "second redo", "a.cfg", "build/keep.txt")
}

// TestRedoTwoTurnsTwiceDeletesForceAdded: turn 1 deletes sub/c.cfg,
// tracked though ignored; turn 2 edits b. Undo 2, redo 2, twice. The
// redo's step for turn 2 captures b's directories only and takes sub/
// from the first step's result, with the tracked_ignored entries of
// the capture memo, which are those of the first step's start (c.cfg
// there: none). Merged into the record of turn 1's end, c.cfg is gone
// from it, and the second "redo 2" left sub/c.cfg.
func TestRedoTwoTurnsTwiceDeletesForceAdded(t *testing.T) {
	t.Parallel()
	rt := forcedSubTree(t)
	rt.snap()
	rt.remove("sub/c.cfg")
	rt.end()
	rt.snap()
	rt.write("b", "the agent's b")
	rt.end()
	for round := range 2 {
		_, err := rt.repo.Undo(rt.ctx, 2, turnback.UndoOptions{})
		rt.do("undo", err)
		if got := rt.read("sub/c.cfg"); got != "c v0" {
			t.Fatalf("round %d: undo 2 left sub/c.cfg %q", round, got)
		}
		res, err := rt.repo.Redo(rt.ctx, 2, turnback.RedoOptions{})
		rt.do("redo", err)
		if !slices.Contains(res.Deleted, "sub/c.cfg") || len(res.NotRestorable) != 0 {
			t.Errorf("round %d: redo 2 left sub/c.cfg %q (%+v)", round, rt.read("sub/c.cfg"), res)
		}
	}
}

// TestRestoreEndAfterUndoRedoDeletesForceAdded: the same two turns;
// undo 2, redo 2, then undo 1 (scoped: b alone) records turn 2's end
// as its checkpoint with the stale memo's list. After undo 1 again,
// restore of turn 2's end, a snapshot whose record first listed
// sub/c.cfg, must delete it. It left it, "ignored in the state
// restored to".
func TestRestoreEndAfterUndoRedoDeletesForceAdded(t *testing.T) {
	t.Parallel()
	rt := forcedSubTree(t)
	rt.snap()
	rt.remove("sub/c.cfg")
	rt.end()
	rt.snap()
	rt.write("b", "the agent's b")
	end := rt.end()
	for _, n := range []int{2, -2, 1, 1} {
		var err error
		if n > 0 {
			_, err = rt.repo.Undo(rt.ctx, n, turnback.UndoOptions{})
		} else {
			_, err = rt.repo.Redo(rt.ctx, -n, turnback.RedoOptions{})
		}
		rt.do(fmt.Sprint("undo/redo ", n), err)
	}
	if got := rt.read("sub/c.cfg"); got != "c v0" {
		t.Fatalf("undo left sub/c.cfg %q", got)
	}
	res, err := rt.repo.Restore(rt.ctx, end, turnback.RestoreOptions{})
	rt.do("restore", err)
	if !slices.Contains(res.Deleted, "sub/c.cfg") || len(res.NotRestorable) != 0 || rt.read("b") != "the agent's b" {
		t.Errorf("restore of turn 2's end: sub/c.cfg %q, b %q (%+v)", rt.read("sub/c.cfg"), rt.read("b"), res)
	}
}

// TestRedoAfterRmCachedKeepsFile (held): a turn deletes a.cfg, tracked
// though ignored, and edits b. After the undo, "git rm --cached a.cfg"
// makes a.cfg the user's, ignored and untracked; the user may edit it.
// The forced redo rewrites b and leaves a.cfg as it is: ignored in the
// state it starts from. In this process and after a reopen.
func TestRedoAfterRmCachedKeepsFile(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name         string
		edit, reopen bool
	}{{"as undone", false, false}, {"edited", true, false}, {"edited, reopened", true, true}} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			rt := forcedTree(t)
			rt.snap()
			rt.remove("a.cfg")
			rt.write("b", "the agent's b")
			rt.end()
			_, err := rt.repo.Undo(rt.ctx, 1, turnback.UndoOptions{})
			rt.do("undo", err)
			runGit(t, rt.dir, "rm", "-q", "--cached", "a.cfg")
			want := "tracked v0"
			if c.edit {
				want = "the user's, untracked"
				rt.write("a.cfg", want)
			}
			if c.reopen {
				rt.reopen()
			}
			res, err := rt.repo.Redo(rt.ctx, 1, turnback.RedoOptions{Force: true})
			rt.do("redo", err)
			if got := rt.read("a.cfg"); got != want || rt.read("b") != "the agent's b" {
				t.Errorf("redo: a.cfg %q, want %q; b %q (%+v)", got, want, rt.read("b"), res)
			}
		})
	}
}

// TestRedoDeleteForceAddedRecovered (held): the redo of a turn that
// deleted a.cfg and build/keep.txt stops at its commit; the next
// command, in a new process, finishes it. Undo and redo then work as
// without the crash, twice.
func TestRedoDeleteForceAddedRecovered(t *testing.T) {
	t.Parallel()
	rt := forcedTree(t)
	rt.snap()
	rt.remove("a.cfg", "build/keep.txt")
	rt.end()
	_, err := rt.repo.Undo(rt.ctx, 1, turnback.UndoOptions{})
	rt.do("undo", err)
	rt.repo.SetRestoreHook(func(step string) error {
		if step == "commit" {
			return errors.New("killed at the commit")
		}
		return nil
	})
	if _, err := rt.repo.Redo(rt.ctx, 1, turnback.RedoOptions{}); err == nil {
		t.Fatal("redo with a failing commit step succeeded")
	}
	rt.repo.SetRestoreHook(nil)
	rt.reopen()
	_, err = rt.repo.Status(rt.ctx)
	rt.do("status", err)
	for round := range 2 {
		_, err := rt.repo.Undo(rt.ctx, 1, turnback.UndoOptions{})
		rt.do("undo", err)
		res, err := rt.repo.Redo(rt.ctx, 1, turnback.RedoOptions{})
		rt.do("redo", err)
		rt.wantDeleted(res, fmt.Sprint("redo after recovery, round ", round), "a.cfg", "build/keep.txt")
	}
}
