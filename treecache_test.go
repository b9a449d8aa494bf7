package turnback

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/turnback/turnback/cas"
)

// TestTreeCacheAfterGC: a Repo remembers the trees its captures stored
// and read (what makes an undo in the watch daemon cheap), and gc, which
// takes unreachable trees out of the store, empties that memory: a tree
// gc deleted is not found any more, through the cache or the store.
func TestTreeCacheAfterGC(t *testing.T) {
	ctx := t.Context()
	dir, store := filepath.Join(t.TempDir(), "work"), filepath.Join(t.TempDir(), "store")
	write := func(v int) {
		t.Helper()
		if err := os.MkdirAll(filepath.Join(dir, "d"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "d", "f.txt"), []byte(fmt.Sprint("version ", v)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(1)
	r, err := Open(ctx, dir, Options{Store: store, Local: true})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	first, err := r.Snap(ctx, "first")
	if err != nil {
		t.Fatal(err)
	}
	if r.trees.Len() == 0 {
		t.Fatal("the capture stored trees and the cache holds none")
	}
	for v := 2; v <= 4; v++ {
		write(v)
		if _, err := r.Snap(ctx, fmt.Sprint("turn ", v)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := r.loader().LoadTree(ctx, first.Snapshot); err != nil {
		t.Fatalf("before gc the first snapshot's tree: %v", err)
	}
	time.Sleep(2 * time.Millisecond)
	if _, err := r.GC(ctx, GCOptions{Keep: 1, OlderThan: time.Nanosecond}); err != nil {
		t.Fatal(err)
	}
	if n := r.trees.Len(); n != 0 {
		t.Fatalf("after gc the tree cache holds %d trees; want none", n)
	}
	if _, err := r.loader().LoadTree(ctx, first.Snapshot); !errors.Is(err, cas.ErrNotFound) {
		t.Fatalf("after gc the first snapshot's tree loads with error %v; want ErrNotFound (gc deletes it)", err)
	}
}
