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

// TestVerifyUseRereadsSharedTrees: during an operation the trees it
// loaded are shared (optrees.go), but verifyUse still reads each tree
// and file it checks from the store: a tree or a file damaged in the
// store after the operation loaded it makes verifyUse refuse.
func TestVerifyUseRereadsSharedTrees(t *testing.T) {
	for _, what := range []string{"tree", "file"} {
		t.Run(what, func(t *testing.T) {
			ctx := t.Context()
			work := filepath.Join(t.TempDir(), "work")
			for i := range 40 {
				treetest.Put(t, work, fmt.Sprintf("d/f%02d.txt", i), fmt.Sprintf("file %d\n", i))
			}
			r, err := Open(ctx, work, Options{Store: filepath.Join(t.TempDir(), "store"), Local: true})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			if _, err := r.Snap(ctx, "turn"); err != nil {
				t.Fatal(err)
			}
			treetest.Put(t, work, "d/f07.txt", "changed by the turn\n")
			end, err := r.End(ctx)
			if err != nil {
				t.Fatal(err)
			}
			after := end.Snapshot
			defer r.shareTrees()()
			// The operation loads the way to the path, and its content.
			shared := r.sharedTrees()
			if shared == nil || r.loader() != manifest.Loader(shared) {
				t.Fatal("no shared trees during the operation")
			}
			e, err := manifest.Find(ctx, r.loader(), after, "d/f07.txt")
			if err != nil || e == nil {
				t.Fatalf("find d/f07.txt: %v, %v", e, err)
			}
			if _, err := r.store.GetBlob(ctx, e.Hash); err != nil {
				t.Fatal(err)
			}
			d, err := manifest.Find(ctx, r.loader(), after, "d")
			if err != nil || d == nil {
				t.Fatalf("find d: %v, %v", d, err)
			}
			// The plan and edits decode d whole; Find decodes one entry.
			if _, err := r.loader().LoadTree(ctx, d.Hash); err != nil {
				t.Fatal(err)
			}
			actions := []restore.Action{{Path: "d/f07.txt", Old: e}}
			if err := r.verifyUse(ctx, after, actions); err != nil {
				t.Fatalf("verifyUse of an intact store: %v", err)
			}
			key := cas.BlobKey(d.Hash)
			if what == "file" {
				key = cas.BlobKey(e.Hash)
			}
			good, err := r.store.Backend().Get(ctx, key)
			if err != nil {
				t.Fatal(err)
			}
			bad := append([]byte(nil), good...)
			bad[len(bad)/2] ^= 0x40
			if err := r.store.Backend().Set(ctx, cas.Entry{Key: key, Value: bad}); err != nil {
				t.Fatal(err)
			}
			if _, ok := shared.Cached(d.Hash); !ok {
				t.Fatal("the shared trees lack d: the test proves nothing")
			}
			err = r.verifyUse(ctx, after, actions)
			if !errors.Is(err, ErrUnverified) {
				t.Fatalf("verifyUse after the %s was damaged in the store: %v; want ErrUnverified", what, err)
			}
		})
	}
}

// TestShareTrees: loader hands out one CachingLoader while an operation
// shares trees, a fresh loader before and after; an operation inside
// another keeps the outer one's; gc empties it.
func TestShareTrees(t *testing.T) {
	ctx := t.Context()
	work := filepath.Join(t.TempDir(), "work")
	treetest.Put(t, work, "a.txt", "a\n")
	r, err := Open(ctx, work, Options{Store: filepath.Join(t.TempDir(), "store"), Local: true})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	snap, err := r.Snap(ctx, "s")
	if err != nil {
		t.Fatal(err)
	}
	if r.sharedTrees() != nil {
		t.Fatal("shared trees before any operation")
	}
	if _, ok := r.loader().(*manifest.StoreLoader); !ok {
		t.Fatalf("loader outside an operation is %T", r.loader())
	}
	end := r.shareTrees()
	c := r.sharedTrees()
	if c == nil || r.loader() != manifest.Loader(c) {
		t.Fatal("loader during an operation is not its shared trees")
	}
	inner := r.shareTrees()
	if r.sharedTrees() != c {
		t.Fatal("an inner operation replaced the shared trees")
	}
	inner()
	if r.sharedTrees() != c {
		t.Fatal("the end of an inner operation dropped the outer one's trees")
	}
	if _, err := r.loader().LoadTree(ctx, snap.Snapshot); err != nil {
		t.Fatal(err)
	}
	if _, ok := c.Cached(snap.Snapshot); !ok {
		t.Fatal("a load during the operation is not shared")
	}
	r.forgetOpTrees()
	if now := r.sharedTrees(); now == nil || now == c {
		t.Fatal("forgetOpTrees did not start afresh")
	}
	end()
	if r.sharedTrees() != nil {
		t.Fatal("shared trees after the operation")
	}
}
