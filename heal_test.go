package turnback

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/manifest"
	"github.com/turnback/turnback/manifest/treetest"
)

// TestRepairStoresAgainFromFolder: stored content that is lost is stored
// again by Repair from a file of the folder that still holds exactly it,
// and only then; the turn then undoes byte for byte.
func TestRepairStoresAgainFromFolder(t *testing.T) {
	big := make([]byte, 3*cas.SmallFileMax+12345) // several chunks
	rand.NewChaCha8([32]byte{1}).Read(big)
	small := []byte("a small file, stored in a block with others\n")
	cases := []struct {
		name string
		// lose is what the store loses: the file's blob, or one chunk.
		chunk bool
		// after changes the folder before the repair.
		after      func(t *testing.T, work string)
		wantHealed []string
	}{
		{name: "small file intact in the folder", wantHealed: []string{"a/small.txt"}},
		{name: "one chunk of a large file", chunk: true, wantHealed: []string{"a/big.bin"}},
		{name: "files changed since", after: func(t *testing.T, work string) {
			treetest.Put(t, work, "a/small.txt", "other content\n")
			treetest.Put(t, work, "b/copy.txt", "other content too\n")
		}},
		{name: "file gone, a copy elsewhere", after: func(t *testing.T, work string) {
			os.Remove(filepath.Join(work, "a/small.txt"))
		}, wantHealed: []string{"b/copy.txt"}},
		{name: "file now a symlink out of the folder", after: func(t *testing.T, work string) {
			outside := filepath.Join(t.TempDir(), "outside.txt")
			os.WriteFile(outside, small, 0o644)
			os.Remove(filepath.Join(work, "a/small.txt"))
			os.Remove(filepath.Join(work, "b/copy.txt"))
			if err := os.Symlink(outside, filepath.Join(work, "a/small.txt")); err != nil {
				t.Skip(err)
			}
		}},
		{name: "file now a FIFO", after: func(t *testing.T, work string) {
			if runtime.GOOS == "windows" {
				t.Skip("no FIFOs")
			}
			os.Remove(filepath.Join(work, "a/small.txt"))
			os.Remove(filepath.Join(work, "b/copy.txt"))
			if err := mkfifo(filepath.Join(work, "a/small.txt")); err != nil {
				t.Skip(err)
			}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ctx := t.Context()
			work := filepath.Join(t.TempDir(), "work")
			store := filepath.Join(t.TempDir(), "store")
			treetest.Put(t, work, "a/small.txt", string(small))
			treetest.Put(t, work, "b/copy.txt", string(small))
			treetest.Put(t, work, "a/big.bin", string(big))
			treetest.Put(t, work, "a/other.txt", "other\n")
			r, err := Open(ctx, work, Options{Store: store, Local: true})
			if err != nil {
				t.Fatal(err)
			}
			snap, err := r.Snap(ctx, "turn")
			if err != nil {
				t.Fatal(err)
			}
			treetest.Put(t, work, "a/small.txt", "changed by the turn\n")
			treetest.Put(t, work, "a/big.bin", "changed by the turn\n")
			if _, err := r.End(ctx); err != nil {
				t.Fatal(err)
			}
			name := "a/small.txt"
			if c.chunk {
				name = "a/big.bin"
			}
			e, err := manifest.Find(ctx, r.loader(), snap.Snapshot, name)
			if err != nil || e == nil {
				t.Fatalf("find %s: %v, %v", name, e, err)
			}
			key := cas.BlobKey(e.Hash)
			if c.chunk {
				refs, _, err := r.store.Chunks(ctx, e.Hash)
				if err != nil || len(refs) < 3 {
					t.Fatalf("chunks of %s: %d, %v", name, len(refs), err)
				}
				key = cas.BlobKey(refs[1].Hash)
			}
			if err := r.store.Backend().Delete(ctx, key); err != nil {
				t.Fatal(err)
			}
			if err := r.Close(); err != nil {
				t.Fatal(err)
			}
			// The folder is as it was before the turn, but for what the
			// case changes.
			treetest.Put(t, work, "a/small.txt", string(small))
			treetest.Put(t, work, "a/big.bin", string(big))
			if c.after != nil {
				c.after(t, work)
			}
			res, err := Repair(ctx, work, Options{Store: store})
			var healed []string
			if res != nil {
				for _, h := range res.Healed {
					healed = append(healed, h.Path)
					if h.Content != e.Hash.String() {
						t.Errorf("healed %s as %s; want %s", h.Path, h.Content, e.Hash)
					}
				}
			}
			if fmt.Sprint(healed) != fmt.Sprint(c.wantHealed) {
				t.Fatalf("healed %v; want %v (err %v)", healed, c.wantHealed, err)
			}
			if len(c.wantHealed) == 0 {
				if !errors.Is(err, ErrVerify) || res == nil || len(res.Verify.Problems) == 0 {
					t.Fatalf("repair with nothing to heal from: %v; want ErrVerify naming %s", err, name)
				}
				return
			}
			if err != nil || len(res.Verify.Problems) != 0 {
				t.Fatalf("repair: %v, %+v", err, res.Verify)
			}
			// The turn undoes byte for byte.
			treetest.Put(t, work, "a/small.txt", "changed by the turn\n")
			treetest.Put(t, work, "a/big.bin", "changed by the turn\n")
			os.Remove(filepath.Join(work, "b/copy.txt"))
			treetest.Put(t, work, "b/copy.txt", string(small))
			r, err = Open(ctx, work, Options{Store: store, Local: true})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			if _, err := r.Undo(ctx, 1, UndoOptions{}); err != nil {
				t.Fatal(err)
			}
			for p, want := range map[string][]byte{"a/small.txt": small, "a/big.bin": big, "b/copy.txt": small, "a/other.txt": []byte("other\n")} {
				got, err := os.ReadFile(filepath.Join(work, p))
				if err != nil || !bytes.Equal(got, want) {
					t.Errorf("after undo %s: %d bytes, %v; want %d bytes", p, len(got), err, len(want))
				}
			}
		})
	}
}
