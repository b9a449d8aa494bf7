package turnback

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/turnback/turnback/manifest"
	"github.com/turnback/turnback/manifest/treetest"
	"github.com/turnback/turnback/restore"
)

// TestVerifyUseSeesPackDamageAfterARead: a small file's content sits in
// a block of a pack file. The operation, or an earlier one of this
// process, read it (a diff, a restore), so its block is in the store's
// block cache. Its bytes in the pack are then damaged. verifyUse must
// refuse the restore: the store no longer holds that content, and the
// restore would overwrite the only good copy.
func TestVerifyUseSeesPackDamageAfterARead(t *testing.T) {
	ctx := t.Context()
	work := filepath.Join(t.TempDir(), "work")
	store := filepath.Join(t.TempDir(), "store")
	r0 := rand.New(rand.NewPCG(46, 3))
	contents := map[string][]byte{}
	for i := range 40 {
		data := make([]byte, 2000+i*50) // incompressible: blocks stored raw
		for k := range data {
			data[k] = byte(r0.Uint32())
		}
		p := fmt.Sprintf("d/f%02d.bin", i)
		contents[p] = data
		treetest.Put(t, work, p, string(data))
	}
	r, err := Open(ctx, work, Options{Store: store, Local: true})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if _, err := r.Snap(ctx, "turn"); err != nil {
		t.Fatal(err)
	}
	treetest.Put(t, work, "d/f07.bin", "changed by the turn\n")
	end, err := r.End(ctx)
	if err != nil {
		t.Fatal(err)
	}
	after := end.Snapshot
	defer r.shareTrees()()
	const path = "d/f03.bin"
	e, err := manifest.Find(ctx, r.loader(), after, path)
	if err != nil || e == nil {
		t.Fatalf("find %s: %v, %v", path, e, err)
	}
	if got, err := r.store.GetBlob(ctx, e.Hash); err != nil || !bytes.Equal(got, contents[path]) {
		t.Fatalf("read %s: %v", path, err)
	}
	actions := []restore.Action{{Path: path, Old: e}}
	if err := r.verifyUse(ctx, after, actions); err != nil {
		t.Fatalf("verifyUse of an intact store: %v", err)
	}
	// Damage the file's own bytes in its pack, and nothing else.
	packs, _ := filepath.Glob(filepath.Join(store, "db", "*.pack"))
	damaged := 0
	for _, p := range packs {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if i := bytes.Index(data, contents[path]); i >= 0 {
			data[i+len(contents[path])/2] ^= 0x40
			if err := os.WriteFile(p, data, 0o600); err != nil {
				t.Fatal(err)
			}
			damaged++
		}
	}
	if damaged != 1 {
		t.Fatalf("found the content in %d packs, want 1", damaged)
	}
	err = r.verifyUse(ctx, after, actions)
	if !errors.Is(err, ErrUnverified) {
		t.Fatalf("verifyUse after %s was damaged in its pack: %v; want ErrUnverified", path, err)
	}
}
