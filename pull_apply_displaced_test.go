package turnback_test

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/turnback/turnback"
	"github.com/turnback/turnback/internal/testtier"
)

// TestApplyPulledDisplacedCheckpoint: the user writes a.txt at the
// moment pull --apply places it. The checkpoint the apply names (the
// one holding the edit) is the one checkpoints lists, and it survives
// a later checkpoint and gc: restoring it gives the edit back.
func TestApplyPulledDisplacedCheckpoint(t *testing.T) {
	testtier.Slow(t)
	ctx := t.Context()
	w := newApplyWorld(t, "bucket-displaced")
	a := filepath.Join(w.b.WorkTree(), "a.txt")
	const edit = "the user's a.txt"
	w.b.SetRestoreHook(func(s string) error {
		if s == "place a.txt" {
			must(t, os.WriteFile(a, []byte(edit), 0o644))
		}
		return nil
	})
	res, err := w.b.ApplyPulled(ctx, "", false)
	w.b.SetRestoreHook(nil)
	if err != nil || len(res.Conflicts) != 1 {
		t.Fatalf("apply: %+v %v", res, err)
	}
	cps, err := w.b.Checkpoints(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(cps, func(c turnback.Checkpoint) bool { return c.ID == res.Checkpoint.String() }) {
		t.Fatalf("checkpoints does not list the checkpoint the apply named (%s): %+v", res.Checkpoint.Short(), cps)
	}
	// A newer checkpoint, then gc keeping every turn.
	if _, err := w.b.Undo(ctx, 1, turnback.UndoOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := w.b.GC(ctx, turnback.GCOptions{Keep: -1, OlderThan: -1}); err != nil {
		t.Fatal(err)
	}
	if _, err := w.b.Restore(ctx, res.Checkpoint.String(), turnback.RestoreOptions{}); err != nil {
		t.Fatalf("restore of the checkpoint the apply named, after gc: %v", err)
	}
	if data, _ := os.ReadFile(a); string(data) != edit {
		t.Fatalf("a.txt from the checkpoint: %q", data)
	}
}
