package turnback

import (
	"errors"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/manifest"
	"github.com/turnback/turnback/manifest/treetest"
	"github.com/turnback/turnback/restore"
)

// TestVerifyUseMissingSharedTree: a tree or a file the operation loaded,
// then taken out of the store, makes verifyUse refuse, although the
// shared trees still hold the tree.
func TestVerifyUseMissingSharedTree(t *testing.T) {
	for _, what := range []string{"tree", "file"} {
		t.Run(what, func(t *testing.T) {
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
			root := snap.Snapshot
			defer r.shareTrees()()
			e, err := manifest.Find(ctx, r.loader(), root, "d/f03.txt")
			if err != nil || e == nil {
				t.Fatalf("find d/f03.txt: %v, %v", e, err)
			}
			d, err := manifest.Find(ctx, r.loader(), root, "d")
			if err != nil || d == nil {
				t.Fatalf("find d: %v, %v", d, err)
			}
			// The plan and edits decode d whole; Find decodes one entry.
			if _, err := r.loader().LoadTree(ctx, d.Hash); err != nil {
				t.Fatal(err)
			}
			actions := []restore.Action{{Path: "d/f03.txt", Old: e}}
			if err := r.verifyUse(ctx, root, actions); err != nil {
				t.Fatalf("verifyUse of an intact store: %v", err)
			}
			key := cas.BlobKey(d.Hash)
			if what == "file" {
				key = cas.BlobKey(e.Hash)
			}
			if err := r.store.Backend().Delete(ctx, key); err != nil {
				t.Fatal(err)
			}
			if _, ok := r.sharedTrees().Cached(d.Hash); !ok {
				t.Fatal("the shared trees lack d: the test proves nothing")
			}
			err = r.verifyUse(ctx, root, actions)
			if !errors.Is(err, ErrUnverified) || !errors.Is(err, cas.ErrNotFound) {
				t.Fatalf("verifyUse after the %s left the store: %v; want ErrUnverified, not found", what, err)
			}
		})
	}
}
