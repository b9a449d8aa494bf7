package turnback

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/internal/model"
	"github.com/turnback/turnback/manifest"
)

// TestHostileTreeCycle: a crafted store whose snapshot names a tree that
// names itself as a subdirectory (stored under an address its bytes do
// not hash to, the only way to make a cycle) and a tree record of
// garbage. verify reports the damage, show and restore fail with
// ErrCorrupt, nothing hangs or panics, and the folder is untouched.
func TestHostileTreeCycle(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	base := t.TempDir()
	work := filepath.Join(base, "work")
	if err := os.MkdirAll(filepath.Join(work, "d"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(work, "d", "a.txt"), []byte("a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := Open(ctx, work, Options{Store: filepath.Join(base, "store")})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if _, err := r.Snap(ctx, "real"); err != nil {
		t.Fatal(err)
	}
	loop := cas.Sum([]byte("a tree that contains itself"))
	tree := manifest.Tree{Entries: []manifest.Entry{{Name: "loop", Kind: manifest.KindDir, Hash: loop, Mode: 0o755}}}
	enc, err := tree.Encode()
	if err != nil {
		t.Fatal(err)
	}
	garbage := cas.Sum([]byte("garbage tree"))
	err = r.backend.Set(ctx,
		cas.Entry{Key: cas.BlobKey(loop), Value: append([]byte{0}, enc...)},
		cas.Entry{Key: cas.BlobKey(garbage), Value: []byte{0, 0xff, 0xfe, 0x01}},
		model.SnapshotEntry(loop, model.KindCheckpoint, 0, 0, nil), model.SnapshotEntry(garbage, model.KindCheckpoint, 0, 0, nil))
	if err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(filepath.Join(work, "d", "a.txt"))
	res, err := r.Verify(ctx)
	if !errors.Is(err, ErrVerify) || len(res.Problems) < 2 {
		t.Errorf("verify: %v, %+v; want the two crafted snapshots reported", err, res)
	}
	for _, id := range []cas.Hash{loop, garbage} {
		if _, err := r.Show(ctx, id.String()); !errors.Is(err, cas.ErrCorrupt) {
			t.Errorf("show %s: %v, want ErrCorrupt", id.Short(), err)
		}
		if _, err := r.Restore(ctx, id.String(), RestoreOptions{}); !errors.Is(err, cas.ErrCorrupt) {
			t.Errorf("restore %s: %v, want ErrCorrupt", id.Short(), err)
		}
		if _, _, _, err := r.Diff(ctx, id.String(), ""); err == nil {
			t.Errorf("diff %s succeeded", id.Short())
		}
	}
	after, err := os.ReadFile(filepath.Join(work, "d", "a.txt"))
	if err != nil || string(after) != string(before) {
		t.Errorf("the folder changed: %q, %v", after, err)
	}
	if ctx.Err() != nil {
		t.Error("a command did not finish (a cycle followed?)")
	}
}
