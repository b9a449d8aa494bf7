package turnback_test

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/turnback/turnback"
)

// TestUndoDisplacedCheckpointListed: an edit made at the moment undo
// replaces the file goes into the checkpoint undo names, and that
// checkpoint is the one checkpoints lists and gc keeps after a newer
// one.
func TestUndoDisplacedCheckpointListed(t *testing.T) {
	ctx := t.Context()
	work := t.TempDir()
	r, err := turnback.Open(ctx, work, turnback.Options{Store: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	f := filepath.Join(work, "f.txt")
	must(t, os.WriteFile(f, []byte("before"), 0o644))
	for _, data := range []string{"one", "two"} {
		if _, err := r.Snap(ctx, ""); err != nil {
			t.Fatal(err)
		}
		must(t, os.WriteFile(f, []byte(data), 0o644))
		if _, err := r.End(ctx); err != nil {
			t.Fatal(err)
		}
	}
	r.SetRestoreHook(func(s string) error {
		if s == "place f.txt" {
			must(t, os.WriteFile(f, []byte("typed at the replacement"), 0o644))
		}
		return nil
	})
	res, err := r.Undo(ctx, 1, turnback.UndoOptions{})
	r.SetRestoreHook(nil)
	if err != nil || len(res.Conflicts) != 1 {
		t.Fatalf("undo: %+v %v", res, err)
	}
	cps, err := r.Checkpoints(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(cps, func(c turnback.Checkpoint) bool { return c.ID == res.Checkpoint.String() }) {
		t.Fatalf("checkpoints does not list %s, the checkpoint undo named: %+v", res.Checkpoint.Short(), cps)
	}
	if _, err := r.Undo(ctx, 1, turnback.UndoOptions{Force: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := r.GC(ctx, turnback.GCOptions{Keep: -1, OlderThan: -1}); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Restore(ctx, res.Checkpoint.String(), turnback.RestoreOptions{}); err != nil {
		t.Fatalf("restore of the checkpoint undo named, after gc: %v", err)
	}
	if data, _ := os.ReadFile(f); string(data) != "typed at the replacement" {
		t.Fatalf("f.txt from the checkpoint: %q", data)
	}
}
