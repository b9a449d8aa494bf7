package turnback_test

// The state a restore, undo or redo leaves (RestoreResult.Result) when
// it rewrites an ignore file: the folder as it is after the command,
// under its new rules, not the checkpoint with the command's changes.

import (
	"errors"
	"os"
	"testing"

	"github.com/turnback/turnback"
	"github.com/turnback/turnback/manifest"
)

// TestRestoreResultUnignored (review41): the restore un-ignores x/ as
// it is, so the folder it leaves holds x/a, captured now. Its
// result lacked x/a: a later restore of that result deleted it, and
// the id named a folder that never was.
func TestRestoreResultUnignored(t *testing.T) {
	t.Parallel()
	rt := newRegressTree(t)
	rt.write(".gitignore", "x/\n")
	rt.write("x/a", "a0")
	rt.write("b", "b")
	rt.snap()
	rt.write(".gitignore", "")
	unignored := rt.snap()
	rt.write(".gitignore", "x/\n")
	rt.write("x/a", "a1, edited while ignored")
	rt.snap()
	res, err := rt.repo.Restore(rt.ctx, unignored, turnback.RestoreOptions{})
	rt.do("restore", err)
	if got := rt.read("x/a"); got != "a1, edited while ignored" {
		t.Fatalf("restore: x/a holds %q", got)
	}
	if e := rt.entryIn(res.Result, "x/a"); e == nil {
		t.Errorf("restore's result %s lacks x/a, on disk and not ignored", res.Result.Short())
	}
	again, err := rt.repo.Restore(rt.ctx, res.Result.String(), turnback.RestoreOptions{})
	rt.do("restore of the result", err)
	if got := rt.read("x/a"); got != "a1, edited while ignored" {
		t.Fatalf("restore of the state the restore left: x/a holds %q (%+v)", got, again)
	}
}

// TestRestoreResultIsTheFolder: a restore that rewrites .gitignore,
// either way (un-ignoring x/, or ignoring it), leaves a result that is
// the folder's capture right after: a snap then records the same id.
func TestRestoreResultIsTheFolder(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ name, from, to string }{
		{"unignore", "x/\n", ""},
		{"ignore", "", "x/\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			rt := newRegressTree(t)
			rt.write(".gitignore", c.to)
			rt.write("x/a", "a0")
			rt.write("b", "b0")
			target := rt.snap()
			rt.write(".gitignore", c.from)
			rt.write("x/a", "a1")
			rt.write("b", "b1")
			rt.snap()
			res, err := rt.repo.Restore(rt.ctx, target, turnback.RestoreOptions{})
			rt.do("restore", err)
			if got := rt.read("b"); got != "b0" {
				t.Fatalf("restore: b holds %q", got)
			}
			if got := rt.read("x/a"); got != "a1" {
				t.Fatalf("restore: x/a holds %q (ignored in the state it started from)", got)
			}
			if now := rt.snap(); now != res.Result.String() {
				t.Errorf("restore's result %s, but the folder it left is %s", res.Result.Short(), now[:12])
			}
		})
	}
}

// TestUndoResultUnignored: the turn deletes x and ignores it; the user
// makes x again (ignored). The undo puts .gitignore back and leaves the
// user's x, not ignored any more. The undo's result (the session's last
// state, status's base) must hold x: restoring it must not delete it.
func TestUndoResultUnignored(t *testing.T) {
	t.Parallel()
	rt := newRegressTree(t)
	rt.write(".gitignore", "")
	rt.write("x", "x before the turn")
	rt.write("b", "b")
	rt.snap()
	rt.do("rm", os.Remove(rt.path("x")))
	rt.write(".gitignore", "x\n")
	rt.end()
	rt.write("x", "the user's, ignored")
	res, err := rt.repo.Undo(rt.ctx, 1, turnback.UndoOptions{})
	rt.do("undo", err)
	if got := rt.read("x"); got != "the user's, ignored" {
		t.Fatalf("undo: x holds %q", got)
	}
	if e := rt.entryIn(res.Result, "x"); e == nil {
		t.Errorf("undo's result %s lacks x, on disk and not ignored", res.Result.Short())
	}
	st, err := rt.repo.Status(rt.ctx)
	rt.do("status", err)
	if st.Base != res.Result || len(st.Changes) != 0 {
		t.Errorf("status after the undo: base %s (result %s), changes %v", st.Base.Short(), res.Result.Short(), st.Changes)
	}
	again, err := rt.repo.Restore(rt.ctx, res.Result.String(), turnback.RestoreOptions{})
	rt.do("restore of the undo's result", err)
	if got := rt.read("x"); got != "the user's, ignored" {
		t.Fatalf("restore of the state the undo left: x holds %q (%+v)", got, again)
	}
}

// TestRedoResultUnignored: the turn un-ignores x/; the undo ignores it
// again; the user then makes x/b (ignored). The redo un-ignores x/
// again and leaves x/b: its result must hold x/b, and restoring it must
// keep x/b.
func TestRedoResultUnignored(t *testing.T) {
	t.Parallel()
	rt := newRegressTree(t)
	rt.write(".gitignore", "x/\n")
	rt.write("a", "a")
	rt.snap()
	rt.write(".gitignore", "")
	rt.end()
	_, err := rt.repo.Undo(rt.ctx, 1, turnback.UndoOptions{})
	rt.do("undo", err)
	rt.write("x/b", "the user's, ignored")
	res, err := rt.repo.Redo(rt.ctx, 1, turnback.RedoOptions{})
	rt.do("redo", err)
	if got := rt.read(".gitignore"); got != "" {
		t.Fatalf("redo: .gitignore holds %q", got)
	}
	if e := rt.entryIn(res.Result, "x/b"); e == nil {
		t.Errorf("redo's result %s lacks x/b, on disk and not ignored", res.Result.Short())
	}
	again, err := rt.repo.Restore(rt.ctx, res.Result.String(), turnback.RestoreOptions{})
	rt.do("restore of the redo's result", err)
	if got := rt.read("x/b"); got != "the user's, ignored" {
		t.Fatalf("restore of the state the redo left: x/b holds %q (%+v)", got, again)
	}
}

// TestUndoResultUnignoredRecovered: as TestUndoResultUnignored, but
// the undo stops after it changed the folder, before its records are
// committed. The next operation finishes it: the state it records as
// the session's last must hold x too.
func TestUndoResultUnignoredRecovered(t *testing.T) {
	t.Parallel()
	rt := newRegressTree(t)
	rt.write(".gitignore", "")
	rt.write("x", "x before the turn")
	rt.write("b", "b")
	rt.snap()
	rt.do("rm", os.Remove(rt.path("x")))
	rt.write(".gitignore", "x\n")
	rt.end()
	rt.write("x", "the user's, ignored")
	rt.repo.SetRestoreHook(func(step string) error {
		if step == "commit" {
			return errors.New("killed at the commit")
		}
		return nil
	})
	if _, err := rt.repo.Undo(rt.ctx, 1, turnback.UndoOptions{}); err == nil {
		t.Fatal("undo with a failing commit step succeeded")
	}
	rt.repo.SetRestoreHook(nil)
	st, err := rt.repo.Status(rt.ctx)
	rt.do("status", err)
	if len(st.Changes) != 0 || rt.entryIn(st.Base, "x") == nil {
		t.Errorf("status after the finished undo: base %s, changes %v; want x in the base, no change", st.Base.Short(), st.Changes)
	}
	if got := rt.read(".gitignore"); got != "" {
		t.Fatalf(".gitignore holds %q", got)
	}
	_, err = rt.repo.Restore(rt.ctx, st.Base.String(), turnback.RestoreOptions{})
	rt.do("restore of the undo's result", err)
	if got := rt.read("x"); got != "the user's, ignored" {
		t.Fatalf("restore of the state the undo left: x holds %q", got)
	}
}

// TestUndoPathResultUnignored: a partial undo (of .gitignore alone)
// un-ignores x, which the user edited while it was ignored. Its result
// holds x; its redo still puts back .gitignore alone, and x stays.
func TestUndoPathResultUnignored(t *testing.T) {
	t.Parallel()
	rt := newRegressTree(t)
	rt.write(".gitignore", "")
	rt.write("x", "x0")
	rt.write("b", "b0")
	rt.snap()
	rt.write(".gitignore", "x\n")
	rt.write("b", "b1")
	rt.end()
	rt.write("x", "x1, edited while ignored")
	res, err := rt.repo.Undo(rt.ctx, 1, turnback.UndoOptions{Paths: []string{".gitignore"}})
	rt.do("undo --path", err)
	if got := rt.read(".gitignore"); got != "" {
		t.Fatalf("undo --path: .gitignore holds %q", got)
	}
	if e := rt.entryIn(res.Result, "x"); e == nil {
		t.Errorf("undo's result %s lacks x, on disk and not ignored", res.Result.Short())
	}
	redo, err := rt.repo.Redo(rt.ctx, 1, turnback.RedoOptions{})
	rt.do("redo", err)
	if got := rt.read(".gitignore"); got != "x\n" {
		t.Fatalf("redo: .gitignore holds %q (%+v)", got, redo)
	}
	if got, b := rt.read("x"), rt.read("b"); got != "x1, edited while ignored" || b != "b1" {
		t.Fatalf("redo: x holds %q, b %q", got, b)
	}
	if len(redo.Restored)+len(redo.Deleted)+len(redo.Created) != 1 {
		t.Errorf("redo changed more than .gitignore: %+v", redo)
	}
}

// TestUndoResultRulesEditMeanwhile: as TestUndoResultUnignored, and
// the turn also edited b; the user edits b again right after the undo
// wrote it, before its records are committed. The undo's result holds
// b as the undo wrote it: status then lists the user's edit of b (and
// nothing for x).
func TestUndoResultRulesEditMeanwhile(t *testing.T) {
	t.Parallel()
	rt := newRegressTree(t)
	rt.write(".gitignore", "")
	rt.write("x", "x before the turn")
	rt.write("b", "b0")
	rt.snap()
	rt.do("rm", os.Remove(rt.path("x")))
	rt.write(".gitignore", "x\n")
	rt.write("b", "b1")
	rt.end()
	rt.write("x", "the user's, ignored")
	rt.repo.SetRestoreHook(func(step string) error {
		if step == "commit" {
			rt.write("b", "the user's edit, meanwhile")
		}
		return nil
	})
	_, err := rt.repo.Undo(rt.ctx, 1, turnback.UndoOptions{})
	rt.do("undo", err)
	rt.repo.SetRestoreHook(nil)
	st, err := rt.repo.Status(rt.ctx)
	rt.do("status", err)
	if len(st.Changes) != 1 || st.Changes[0].Path != "b" || st.Changes[0].Kind != manifest.Modified {
		t.Errorf("status after the undo: %v; want b modified alone", st.Changes)
	}
	if e := rt.entryIn(st.Base, "x"); e == nil {
		t.Errorf("the undo's result lacks x")
	}
}

// TestRestoreResultUnignoredDisplaced: as TestRestoreResultUnignored,
// and b, which the restore rewrites, is edited just before it is
// replaced: that edit goes into the checkpoint (amended), and the
// result is still captured again.
func TestRestoreResultUnignoredDisplaced(t *testing.T) {
	t.Parallel()
	rt := newRegressTree(t)
	rt.write(".gitignore", "x/\n")
	rt.write("x/a", "a0")
	rt.write("b", "b0")
	rt.snap()
	rt.write(".gitignore", "")
	unignored := rt.snap()
	rt.write(".gitignore", "x/\n")
	rt.write("x/a", "a1, edited while ignored")
	rt.write("b", "b1")
	rt.snap()
	rt.repo.SetRestoreHook(func(step string) error {
		if step == "place b" {
			rt.write("b", "b2, edited during the restore")
		}
		return nil
	})
	res, err := rt.repo.Restore(rt.ctx, unignored, turnback.RestoreOptions{})
	rt.do("restore", err)
	rt.repo.SetRestoreHook(nil)
	if len(res.Conflicts) != 1 || res.Conflicts[0].Path != "b" {
		t.Fatalf("restore: conflicts %v; want b, displaced", res.Conflicts)
	}
	if e := rt.entryIn(res.Result, "x/a"); e == nil {
		t.Errorf("restore's result %s lacks x/a, on disk and not ignored", res.Result.Short())
	}
	if got := rt.read("b"); got != "b0" {
		t.Fatalf("restore: b holds %q", got)
	}
	if now := rt.snap(); now != res.Result.String() {
		t.Errorf("restore's result %s, but the folder it left is %s", res.Result.Short(), now[:12])
	}
}
