//go:build unix

package turnback_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/turnback/turnback"
)

// TestServedReadOnlyDryRun: a dry run changes nothing, so a Repo opened
// read-only may run one, served by a daemon as it may locally (it was
// refused with ErrReadOnly when served); a real undo is still refused.
func TestServedReadOnlyDryRun(t *testing.T) {
	ctx := context.Background()
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
	_, stop := startDaemon(t, dir, store, "")
	defer stop()
	w, err := turnback.Open(ctx, dir, turnback.Options{Store: store, LockWait: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if _, err := w.Snap(ctx, "t1"); err != nil {
		t.Fatal(err)
	}
	write("two\n")
	if _, err := w.End(ctx); err != nil {
		t.Fatal(err)
	}
	cp, err := w.Undo(ctx, 1, turnback.UndoOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Redo(ctx, 1, turnback.RedoOptions{}); err != nil {
		t.Fatal(err)
	}
	r, err := turnback.Open(ctx, dir, turnback.Options{Store: store, LockWait: -1, Access: turnback.AccessRead})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if !r.Served() {
		t.Fatal("not served")
	}
	u, err := r.Undo(ctx, 1, turnback.UndoOptions{DryRun: true})
	if err != nil || u.DryRun == nil || len(u.DryRun.Restored) != 1 {
		t.Errorf("undo dry run: %+v, %v; want a.txt to be rewritten", u, err)
	}
	if _, err := r.Restore(ctx, cp.Checkpoint.String(), turnback.RestoreOptions{DryRun: true}); err != nil {
		t.Errorf("restore dry run: %v", err)
	}
	if _, err := r.Undo(ctx, 1, turnback.UndoOptions{}); !errors.Is(err, turnback.ErrReadOnly) {
		t.Errorf("undo on a read-only Repo: %v, want ErrReadOnly", err)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(data) != "two\n" {
		t.Errorf("a.txt = %q, want it untouched", data)
	}
}
