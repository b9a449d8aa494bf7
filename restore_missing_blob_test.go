package turnback

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/manifest"
	"github.com/turnback/turnback/manifest/treetest"
)

// TestRestoreMissingBlobSaysDamaged: content the store held and then
// lost (a damaged store) fails an undo and a restore with an error that
// says so, not that the content was never captured, and leaves the file
// as it was.
func TestRestoreMissingBlobSaysDamaged(t *testing.T) {
	ctx := t.Context()
	work := filepath.Join(t.TempDir(), "work")
	for i := range 10 {
		treetest.Put(t, work, fmt.Sprintf("d/f%02d.txt", i), fmt.Sprintf("file %d\n", i))
	}
	r, err := Open(ctx, work, Options{Store: filepath.Join(t.TempDir(), "store"), Local: true})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	snap, err := r.Snap(ctx, "turn")
	if err != nil {
		t.Fatal(err)
	}
	e, err := manifest.Find(ctx, r.loader(), snap.Snapshot, "d/f03.txt")
	if err != nil || e == nil {
		t.Fatalf("find d/f03.txt: %v, %v", e, err)
	}
	treetest.Put(t, work, "d/f03.txt", "changed\n")
	if _, err := r.End(ctx); err != nil {
		t.Fatal(err)
	}
	if err := r.store.Backend().Delete(ctx, cas.BlobKey(e.Hash)); err != nil {
		t.Fatal(err)
	}
	for _, op := range []struct {
		name string
		run  func() error
	}{
		{"undo", func() error { _, err := r.Undo(ctx, 1, UndoOptions{}); return err }},
		{"restore", func() error { _, err := r.Restore(ctx, snap.Snapshot.String(), RestoreOptions{}); return err }},
	} {
		err := op.run()
		if err == nil {
			t.Fatalf("%s of content the store lost: no error", op.name)
		}
		msg := err.Error()
		if !strings.Contains(msg, "d/f03.txt") || !strings.Contains(msg, "the store is missing it") || strings.Contains(msg, "never captured") {
			t.Errorf("%s: %q; want it to name d/f03.txt and say the store is missing its content", op.name, msg)
		}
		if b, err := os.ReadFile(filepath.Join(work, "d/f03.txt")); err != nil || string(b) != "changed\n" {
			t.Errorf("%s: d/f03.txt now %q, %v; want it left as it was", op.name, b, err)
		}
	}
}
