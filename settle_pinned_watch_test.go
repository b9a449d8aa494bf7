//go:build linux

package turnback

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/turnback/turnback/manifest"
)

// TestSettleKeepsEditsAsChangesWatched: TestSettleKeepsEditsAsChanges
// with a watcher (the recapture is then incremental, from the
// watcher's base), after a crash at the commit step.
func TestSettleKeepsEditsAsChangesWatched(t *testing.T) {
	ctx := t.Context()
	wt, store := t.TempDir(), t.TempDir()
	w := func(rel, data string) { writeFile(t, filepath.Join(wt, rel), data) }
	w(".gitignore", "")
	w("old.log", "kept")
	w("b", "b0")
	w("c", "c0")
	w("d", "d0")
	r, err := Open(ctx, wt, Options{Store: store, LockWait: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if err := r.Watch(ctx, WatchOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Snap(ctx, "turn"); err != nil {
		t.Fatal(err)
	}
	w(".gitignore", "*.log\n")
	w("b", "b1")
	if _, err := r.End(ctx); err != nil {
		t.Fatal(err)
	}
	r.SetRestoreHook(func(step string) error {
		if step == "commit" {
			return errors.New("killed at the commit")
		}
		return nil
	})
	if _, err := r.Undo(ctx, 1, UndoOptions{}); err == nil {
		t.Fatal("undo with a failing commit step succeeded")
	}
	r.SetRestoreHook(nil)
	w("b", "the user's b")
	w("c", "the user's c")
	if err := os.Remove(filepath.Join(wt, "d")); err != nil {
		t.Fatal(err)
	}
	w("u/1", "the user's u/1")
	w("n", "the user's n")
	st, err := r.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]manifest.ChangeKind{}
	for _, c := range st.Changes {
		got[c.Path] = c.Kind
	}
	want := map[string]manifest.ChangeKind{
		"b": manifest.Modified, "c": manifest.Modified, "d": manifest.Deleted,
		"u": manifest.Added, "u/1": manifest.Added, "n": manifest.Added,
	}
	if len(got) != len(want) {
		t.Fatalf("status: %v; want %v", got, want)
	}
	for p, k := range want {
		if got[p] != k {
			t.Errorf("status: %s %v; want %v (all: %v)", p, got[p], k, got)
		}
	}
	// A snap now takes the user's edits, and old.log, un-ignored.
	s, err := r.Snap(ctx, "after")
	if err != nil {
		t.Fatal(err)
	}
	if e, err := manifest.Find(ctx, manifest.NewStoreLoader(r.Content()), s.Snapshot, "old.log"); err != nil || e == nil {
		t.Errorf("snap after the undo lacks old.log: %v", err)
	}
}
