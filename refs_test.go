package turnback_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/turnback/turnback"
	"github.com/turnback/turnback/cas/ref"
)

// lfsFixture is a hand-made Git LFS repository (no git needed): a .git
// directory, a .gitattributes giving *.bin filter=lfs, and big.bin with
// its object in .git/lfs/objects.
type lfsFixture struct {
	dir, obj string
	data     []byte
}

func newLFSFixture(t *testing.T) *lfsFixture {
	t.Helper()
	dir := t.TempDir()
	f := &lfsFixture{dir: dir, data: make([]byte, 2<<20)}
	_, _ = rand.NewChaCha8([32]byte{14}).Read(f.data)
	sum := sha256.Sum256(f.data)
	h := hex.EncodeToString(sum[:])
	f.obj = filepath.Join(dir, ".git", "lfs", "objects", h[:2], h[2:4], h)
	for p, data := range map[string][]byte{
		filepath.Join(dir, ".git", "HEAD"):   []byte("ref: refs/heads/main\n"),
		filepath.Join(dir, ".gitattributes"): []byte("*.bin filter=lfs diff=lfs merge=lfs -text\n"),
		filepath.Join(dir, "big.bin"):        f.data,
		f.obj:                                f.data,
	} {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return f
}

// TestRefGoesStaleWhileStaging: the LFS object is rewritten after the
// undo checked it, while files are staged. The undo fails as a whole
// (all or nothing): nothing in the work tree changes, no staging file
// is left, and once the object is right again the undo succeeds.
func TestRefGoesStaleWhileStaging(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	f := newLFSFixture(t)
	repo, err := turnback.Open(ctx, f.dir, turnback.Options{Store: filepath.Join(t.TempDir(), "store"), SizeLimit: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer repo.Close()
	snap, err := repo.Snap(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(snap.Stats.Unprotected) != 0 {
		t.Fatalf("LFS file unprotected: %+v", snap.Stats.Unprotected)
	}
	if err := os.WriteFile(filepath.Join(f.dir, "small.txt"), []byte("new\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(f.dir, "big.bin")); err != nil {
		t.Fatal(err)
	}
	if _, err := repo.End(ctx); err != nil {
		t.Fatal(err)
	}
	other := bytes.Clone(f.data)
	other[12345] ^= 1
	repo.SetRestoreHook(func(step string) error {
		if strings.HasPrefix(step, "stage") {
			return os.WriteFile(f.obj, other, 0o644)
		}
		return nil
	})
	_, err = repo.Undo(ctx, 1, turnback.UndoOptions{})
	if !errors.Is(err, ref.ErrStale) {
		t.Fatalf("undo over a reference gone stale: %v, want ErrStale", err)
	}
	ents, _ := os.ReadDir(f.dir)
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	if strings.Join(names, " ") != ".git .gitattributes small.txt" {
		t.Fatalf("work tree after a failed undo: %q", names)
	}
	repo.SetRestoreHook(nil)
	if err := os.WriteFile(f.obj, f.data, 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := repo.Undo(ctx, 1, turnback.UndoOptions{})
	if err != nil || res.Incomplete() || res.Turns != 1 {
		t.Fatalf("undo: %+v %v", res, err)
	}
	got, err := os.ReadFile(filepath.Join(f.dir, "big.bin"))
	if err != nil || !bytes.Equal(got, f.data) {
		t.Fatalf("big.bin not restored byte for byte: %v", err)
	}
	if _, err := os.Stat(filepath.Join(f.dir, "small.txt")); !os.IsNotExist(err) {
		t.Fatalf("small.txt: %v", err)
	}
}
