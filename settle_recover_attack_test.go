package turnback_test

// review43: what the recovery of a rule-changing restore records when
// the folder changed between the crash and the next command.

import (
	"errors"
	"testing"

	"github.com/turnback/turnback"
	"github.com/turnback/turnback/manifest"
)

// TestSettleRecoveryKeepsLaterEdits: an undo that rewrites .gitignore
// (adding a rule that matches nothing) stops after its files are in
// place, before its records are committed (a crash). Before the next
// command the user edits c, which the undo did not write, and makes n.
// The next command finishes the undo; status must then list c and n:
// they are the user's changes since the undo. The recapture in
// recovery takes them into the undo's result (its capture runs only
// now, and keepWritten restores only the paths the undo wrote), so
// status lists nothing, and the undo's recorded result is a folder
// the undo never left. 2867e0d^ (the planned result) lists both.
func TestSettleRecoveryKeepsLaterEdits(t *testing.T) {
	t.Parallel()
	rt := newRegressTree(t)
	rt.write(".gitignore", "")
	rt.write("b", "b0")
	rt.write("c", "c0")
	rt.snap()
	rt.write(".gitignore", "*.log\n")
	rt.write("b", "b1")
	rt.end()
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
	rt.write("c", "the user's edit after the crash")
	rt.write("n", "the user's, made after the crash")
	st, err := rt.repo.Status(rt.ctx)
	rt.do("status", err)
	if got := rt.read("b"); got != "b0" {
		t.Fatalf("the finished undo left b %q", got)
	}
	got := map[string]manifest.ChangeKind{}
	for _, c := range st.Changes {
		got[c.Path] = c.Kind
	}
	if len(got) != 2 || got["c"] != manifest.Modified || got["n"] != manifest.Added {
		t.Errorf("status after the finished undo: %v; want c modified, n added", got)
	}
}
