package turnback_test

import (
	"os"
	"testing"
	"time"

	"github.com/turnback/turnback"
)

// TestUndoEditDuringApplyNotCached (review42): the undo places a, then,
// before it places b, the user rewrites a in place with content of the
// same size and sets its mtime back to the undo's (as an editor that
// keeps times does), and the apply goes on for 150 ms more. The undo's
// final lstat of a sees the user's file (same inode, size and mtime as
// staged), and StatCache.Record trusts its stat against the time Apply
// ended (100 ms window): the next capture takes a for the undo's content.
// The user's edit must show as a change. (The redo after it still
// refuses a as a conflict: the content check at replacement holds.)
func TestUndoEditDuringApplyNotCached(t *testing.T) {
	t.Parallel()
	rt := newRegressTree(t)
	rt.write("a", "aaaa")
	rt.write("b", "bbbb")
	rt.snap()
	rt.write("a", "AAAA")
	rt.write("b", "BBBB")
	rt.end()
	rt.repo.SetRestoreHook(func(step string) error {
		if step != "place b" {
			return nil
		}
		fi, err := os.Stat(rt.path("a"))
		if err != nil {
			return err
		}
		if err := os.WriteFile(rt.path("a"), []byte("user"), 0o644); err != nil {
			return err
		}
		if err := os.Chtimes(rt.path("a"), fi.ModTime(), fi.ModTime()); err != nil {
			return err
		}
		time.Sleep(150 * time.Millisecond)
		return nil
	})
	res, err := rt.repo.Undo(rt.ctx, 1, turnback.UndoOptions{})
	rt.repo.SetRestoreHook(nil)
	rt.do("undo", err)
	if got := rt.read("a"); got != "user" {
		t.Fatalf("a holds %q after the undo (%+v)", got, res)
	}
	st, err := rt.repo.Status(rt.ctx)
	rt.do("status", err)
	seen := false
	for _, c := range st.Changes {
		seen = seen || c.Path == "a"
	}
	// The redo replaces a: the user's content must be a conflict, or
	// be in the redo's checkpoint.
	rr, rerr := rt.repo.Redo(rt.ctx, 1, turnback.RedoOptions{})
	if rerr == nil {
		cr, err := rt.repo.Restore(rt.ctx, rr.Checkpoint.String(), turnback.RestoreOptions{})
		rt.do("restore the redo's checkpoint", err)
		if got := rt.read("a"); got != "user" {
			t.Errorf("the redo replaced a without its content in the checkpoint: a %q after restoring it (%+v)", got, cr)
		}
	}
	if !seen {
		t.Fatalf("a, rewritten by the user during the undo, is not a change after it: %+v (read %d files); redo: %v",
			st.Changes, st.Stats.HashedFiles, rerr)
	}
}
