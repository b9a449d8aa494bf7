//go:build linux

package turnback

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/turnback/turnback/manifest"
)

// TestSettleKeepsWrittenDirCapturedWatched (review43): as
// TestSettleKeepsWrittenDirCaptured, with a watcher. The undo writes
// all 250 files of x/ back and un-ignores it; the watched recapture
// judges x/ a new large directory too (its Previous is the watcher's
// base, the state before the undo) and records it uncaptured. The next
// turn deletes x/ and its undo cannot bring it back.
func TestSettleKeepsWrittenDirCapturedWatched(t *testing.T) {
	ctx := t.Context()
	wt, store := t.TempDir(), t.TempDir()
	w := func(rel, data string) { writeFile(t, filepath.Join(wt, rel), data) }
	w(".gitignore", "")
	w("b", "b0")
	for i := range 250 {
		w(fmt.Sprintf("x/f%03d", i), fmt.Sprintf("f%d", i))
	}
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
	if err := os.RemoveAll(filepath.Join(wt, "x")); err != nil {
		t.Fatal(err)
	}
	w(".gitignore", "x/\n")
	w("b", "b1")
	if _, err := r.End(ctx); err != nil {
		t.Fatal(err)
	}
	u, err := r.Undo(ctx, 1, UndoOptions{})
	if err != nil {
		t.Fatal(err)
	}
	e, err := manifest.Find(ctx, manifest.NewStoreLoader(r.Content()), u.Result, "x")
	if err != nil {
		t.Fatal(err)
	}
	if e == nil || e.Uncaptured {
		t.Errorf("undo wrote all of x/, but its result %s records x as %+v", u.Result.Short(), e)
	}
	if _, err := r.Snap(ctx, "deletes x again"); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(filepath.Join(wt, "x")); err != nil {
		t.Fatal(err)
	}
	if _, err := r.End(ctx); err != nil {
		t.Fatal(err)
	}
	u2, err := r.Undo(ctx, 1, UndoOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if data, err := os.ReadFile(filepath.Join(wt, "x", "f001")); err != nil || string(data) != "f1" {
		t.Fatalf("undo of the turn that deleted x/ again: x/f001 %q %v; not restorable: %v", data, err, u2.NotRestorable)
	}
}
