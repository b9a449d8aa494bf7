package turnback_test

// review43: attacks on the recaptured result of a restore, undo or
// redo that rewrites ignore rules (settle.go).

import (
	"fmt"
	"os"
	"testing"

	"github.com/turnback/turnback"
)

// TestSettleKeepsWrittenDirCaptured: a turn deletes x/ (250 files) and
// ignores it; the undo writes every file of x/ back from the store and
// un-ignores it. Its recapture judges x/ a new large directory (absent
// from m/latest, the state before the undo) and records it uncaptured,
// though the undo wrote each file. The next turn deletes x/ again: its
// undo then cannot bring x/ back ("its content was never captured"),
// while the store holds every file. Before settle (2867e0d^) the undo's
// result held x/ whole, and the second undo made it again.
func TestSettleKeepsWrittenDirCaptured(t *testing.T) {
	t.Parallel()
	const n = 250 // over walker.DefaultLargeDirFiles
	for _, op := range []string{"undo", "restore"} {
		t.Run(op, func(t *testing.T) {
			t.Parallel()
			rt := newRegressTree(t)
			rt.write(".gitignore", "")
			rt.write("b", "b0")
			for i := range n {
				rt.write(fmt.Sprintf("x/f%03d", i), fmt.Sprintf("f%d", i))
			}
			before := rt.snap()
			rt.do("rm", os.RemoveAll(rt.path("x")))
			rt.write(".gitignore", "x/\n")
			rt.write("b", "b1")
			rt.end()
			var res *turnback.RestoreResult
			var err error
			if op == "undo" {
				res, err = rt.repo.Undo(rt.ctx, 1, turnback.UndoOptions{})
			} else {
				res, err = rt.repo.Restore(rt.ctx, before, turnback.RestoreOptions{})
			}
			rt.do(op, err)
			if got := rt.read("x/f001"); got != "f1" {
				t.Fatalf("%s: x/f001 holds %q", op, got)
			}
			if e := rt.entryIn(res.Result, "x"); e == nil || e.Uncaptured {
				t.Errorf("%s wrote all of x/, but its result %s records x as %+v", op, res.Result.Short(), e)
			}
			// The agent deletes x/ again; undo must bring it back.
			rt.snap()
			rt.do("rm", os.RemoveAll(rt.path("x")))
			rt.end()
			u, err := rt.repo.Undo(rt.ctx, 1, turnback.UndoOptions{})
			rt.do("second undo", err)
			if got := rt.read("x/f001"); got != "f1" {
				t.Fatalf("undo of the turn that deleted x/ again: x/f001 holds %q; not restorable: %v", got, u.NotRestorable)
			}
		})
	}
}

// TestNoRulesNoRecapture: an undo and a restore that rewrite no ignore
// file keep the planned result (no capture after the files are in
// place): c.txt, which the user makes just before the records are
// committed, is not part of the result, and status lists it as added.
// A recapture would take it into the result and hide it.
func TestNoRulesNoRecapture(t *testing.T) {
	t.Parallel()
	for _, op := range []string{"undo", "restore"} {
		t.Run(op, func(t *testing.T) {
			t.Parallel()
			rt := newRegressTree(t)
			rt.write(".gitignore", "*.log\n")
			rt.write("a.txt", "one")
			before := rt.snap()
			rt.write("a.txt", "two")
			rt.end()
			rt.repo.SetRestoreHook(func(step string) error {
				if step == "commit" {
					rt.write("c.txt", "the user's, made meanwhile")
				}
				return nil
			})
			var res *turnback.RestoreResult
			var err error
			if op == "undo" {
				res, err = rt.repo.Undo(rt.ctx, 1, turnback.UndoOptions{})
			} else {
				res, err = rt.repo.Restore(rt.ctx, before, turnback.RestoreOptions{})
			}
			rt.do(op, err)
			rt.repo.SetRestoreHook(nil)
			if e := rt.entryIn(res.Result, "c.txt"); e != nil {
				t.Errorf("%s's result %s holds c.txt, made after its files were in place", op, res.Result.Short())
			}
			st, err := rt.repo.Status(rt.ctx)
			rt.do("status", err)
			if op == "undo" && (len(st.Changes) != 1 || st.Changes[0].Path != "c.txt") {
				t.Errorf("status after the undo: %v; want c.txt added", st.Changes)
			}
		})
	}
}

// TestSettleRedoIntoWrittenDir: turn 1 adds x/new.txt to x/ (250
// files); turn 2 deletes x/ and ignores it. undo 2 writes x/ back and
// un-ignores it; its recapture records x uncaptured (see
// TestSettleKeepsWrittenDirCaptured). The redo of turn 1 then fails
// with "manifest: edit "x": changes below a dir" (exit 1, nothing
// changed), so turn 1 can no longer be redone. 2867e0d^ redoes it.
func TestSettleRedoIntoWrittenDir(t *testing.T) {
	t.Parallel()
	rt := newRegressTree(t)
	rt.write(".gitignore", "")
	rt.write("b", "b0")
	for i := range 250 {
		rt.write(fmt.Sprintf("x/f%03d", i), fmt.Sprintf("f%d", i))
	}
	rt.snap()
	rt.write("x/new.txt", "turn 1 made it")
	rt.end()
	rt.snap()
	rt.do("rm", os.RemoveAll(rt.path("x")))
	rt.write(".gitignore", "x/\n")
	rt.end()
	_, err := rt.repo.Undo(rt.ctx, 2, turnback.UndoOptions{})
	rt.do("undo 2", err)
	if got := rt.read("x/f001"); got != "f1" {
		t.Fatalf("undo 2: x/f001 holds %q", got)
	}
	_, err = rt.repo.Redo(rt.ctx, 1, turnback.RedoOptions{})
	rt.do("redo of turn 1", err)
	if got := rt.read("x/new.txt"); got != "turn 1 made it" {
		t.Fatalf("redo of turn 1: x/new.txt holds %q", got)
	}
}
