//go:build unix

package turnback_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/turnback/turnback"
)

// TestCheckpointsListed: every undo, redo and restore's checkpoint is
// listed, newest first, the same by a served Repo as by a local one.
func TestCheckpointsListed(t *testing.T) {
	ctx := context.Background()
	for _, served := range []bool{false, true} {
		dir, store := filepath.Join(t.TempDir(), "work"), filepath.Join(t.TempDir(), "store")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		write := func(s string) {
			if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte(s), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		write("one\n")
		if served {
			_, stop := startDaemon(t, dir, store, "")
			defer stop()
		}
		r, err := turnback.Open(ctx, dir, turnback.Options{Store: store, LockWait: -1})
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		if r.Served() != served {
			t.Fatalf("Served() = %v, want %v", r.Served(), served)
		}
		if list, err := r.Checkpoints(ctx); err != nil || len(list) != 0 {
			t.Fatalf("before any undo: %v, %v", list, err)
		}
		if _, err := r.Snap(ctx, "t1"); err != nil {
			t.Fatal(err)
		}
		write("two\n")
		if _, err := r.End(ctx); err != nil {
			t.Fatal(err)
		}
		u, err := r.Undo(ctx, 1, turnback.UndoOptions{})
		if err != nil {
			t.Fatal(err)
		}
		d, err := r.Redo(ctx, 1, turnback.RedoOptions{})
		if err != nil {
			t.Fatal(err)
		}
		list, err := r.Checkpoints(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(list) != 2 {
			t.Fatalf("served %v: %d checkpoints, want 2: %+v", served, len(list), list)
		}
		if list[0].ID != d.Checkpoint.String() || list[1].ID != u.Checkpoint.String() {
			t.Errorf("served %v: checkpoints %s, %s; want the redo's %s then the undo's %s", served, list[0].ID, list[1].ID, d.Checkpoint, u.Checkpoint)
		}
		for _, c := range list {
			if c.Session != "default" || c.Turn != 1 || c.Time.IsZero() {
				t.Errorf("served %v: checkpoint %+v: want session default, turn 1, a time", served, c)
			}
		}
	}
}
