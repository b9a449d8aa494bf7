package turnback

import (
	"context"

	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/turnback/turnback/manifest"
	"github.com/turnback/turnback/restore"
)

// BenchmarkVerifyUse measures verifyUse alone on the actions of such an
// undo (the content it replaces read back and hashed, the trees on the
// way), to compare with the undo's own time.
//
//	go test -run '^$' -bench BenchmarkVerifyUse .
func BenchmarkVerifyUse(b *testing.B) {
	for _, size := range []struct {
		name      string
		files, sz int
	}{{"small", 20, 4 << 10}, {"large", 200, 64 << 10}} {
		b.Run(size.name, func(b *testing.B) {
			ctx := context.Background()
			base := b.TempDir()
			work := filepath.Join(base, "work")
			if err := os.MkdirAll(work, 0o755); err != nil {
				b.Fatal(err)
			}
			rng := rand.New(rand.NewPCG(1, 2))
			for i := range 1000 {
				n := 4 << 10
				if i < size.files {
					n = size.sz
				}
				data := make([]byte, n)
				for j := range data {
					data[j] = byte(rng.Uint32())
				}
				if err := os.WriteFile(filepath.Join(work, fmt.Sprintf("f%04d", i)), data, 0o644); err != nil {
					b.Fatal(err)
				}
			}
			r, err := Open(ctx, work, Options{Store: filepath.Join(base, "store")})
			if err != nil {
				b.Fatal(err)
			}
			defer r.Close()
			res, err := r.Snap(ctx, "t")
			if err != nil {
				b.Fatal(err)
			}
			r.Close()
			// A fresh open: nothing cached in this process.
			if r, err = Open(ctx, work, Options{Store: filepath.Join(base, "store")}); err != nil {
				b.Fatal(err)
			}
			loader := manifest.NewStoreLoader(r.store)
			var actions []restore.Action
			for i := range size.files {
				p := fmt.Sprintf("f%04d", i)
				e, err := manifest.Find(ctx, loader, res.Snapshot, p)
				if err != nil || e == nil {
					b.Fatal(p, err)
				}
				actions = append(actions, restore.Action{Path: p, Old: e})
			}
			b.SetBytes(int64(size.files * size.sz))
			b.ResetTimer()
			for range b.N {
				if err := r.verifyUse(ctx, res.Snapshot, actions); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkUndoVerifyUse measures an undo and its redo with and without
// verifying before use: a tree of 1000 files of 4 KiB, and a turn that
// rewrote 20 of them (small) or 200 to 64 KiB (large). On a shared
// machine the noise exceeds the difference; BenchmarkVerifyUse measures
// the verification alone.
//
//	go test -run '^$' -bench BenchmarkUndoVerifyUse -benchtime 5x .
func BenchmarkUndoVerifyUse(b *testing.B) {
	for _, size := range []struct {
		name      string
		files, sz int
	}{{"small", 20, 4 << 10}, {"large", 200, 64 << 10}} {
		for _, on := range []bool{false, true} {
			b.Run(fmt.Sprintf("%s/verify=%v", size.name, on), func(b *testing.B) {
				ctx := context.Background()
				base := b.TempDir()
				work := filepath.Join(base, "work")
				if err := os.MkdirAll(work, 0o755); err != nil {
					b.Fatal(err)
				}
				rng := rand.New(rand.NewPCG(1, 2))
				fill := func(name string, n int) {
					data := make([]byte, n)
					for i := range data {
						data[i] = byte(rng.Uint32())
					}
					if err := os.WriteFile(filepath.Join(work, name), data, 0o644); err != nil {
						b.Fatal(err)
					}
				}
				for i := range 1000 {
					fill(fmt.Sprintf("f%04d", i), 4<<10)
				}
				r, err := Open(ctx, work, Options{Store: filepath.Join(base, "store")})
				if err != nil {
					b.Fatal(err)
				}
				defer r.Close()
				if _, err := r.Snap(ctx, "t"); err != nil {
					b.Fatal(err)
				}
				for i := range size.files {
					fill(fmt.Sprintf("f%04d", i), size.sz)
				}
				if _, err := r.End(ctx); err != nil {
					b.Fatal(err)
				}
				skipVerifyUse = !on
				defer func() { skipVerifyUse = false }()
				b.ResetTimer()
				for range b.N {
					if _, err := r.Undo(ctx, 1, UndoOptions{}); err != nil {
						b.Fatal(err)
					}
					if _, err := r.Redo(ctx, 1, RedoOptions{}); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
