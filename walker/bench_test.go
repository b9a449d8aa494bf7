//go:build unix

package walker

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkCaptureNoChange: the common case of a capture at every turn,
// a 5,000-file tree that did not change, with the stat cache and the
// previous snapshot.
func BenchmarkCaptureNoChange(b *testing.B) {
	benchNoChange(b, func(dir string) int { return genTree(b, dir, 50, 100) })
}

// BenchmarkCaptureNoChangeShaped is BenchmarkCaptureNoChange on a tree
// shaped like Go's source: 1,300 directories, most with a few files,
// ten with hundreds, nested up to six deep; about 11,000 files.
func BenchmarkCaptureNoChangeShaped(b *testing.B) {
	benchNoChange(b, func(dir string) int { return genShapedTree(b, dir, 1300) })
}

// benchNoChange times no-change captures of the tree gen writes (it
// returns the number of files).
func benchNoChange(b *testing.B, gen func(dir string) int) {
	dir := b.TempDir()
	n := gen(dir)
	ageTree(b, dir)
	time.Sleep(settle)
	s := newStore(b)
	cache := NewStatCache(s.Backend())
	root := openRoot(b, dir)
	ctx := context.Background()
	first, err := Capture(ctx, root, s, Options{Cache: cache})
	if err != nil {
		b.Fatal(err)
	}
	if first.Stats.Files != int64(n) {
		b.Fatalf("captured %d files, want %d", first.Stats.Files, n)
	}
	opts := Options{Cache: cache, Previous: first.Root}
	b.ReportAllocs()
	for b.Loop() {
		res, err := Capture(ctx, root, s, opts)
		if err != nil {
			b.Fatal(err)
		}
		if res.Root != first.Root || res.Stats.HashedFiles != 0 {
			b.Fatalf("root %s (want %s), read %d files (want 0)", res.Root.Short(), first.Root.Short(), res.Stats.HashedFiles)
		}
	}
}

// genShapedTree writes below dir a tree of ndirs directories shaped as
// BenchmarkCaptureNoChangeShaped's (1,300 there), ten of them large,
// and returns its count of files. The same ndirs gives the same tree.
func genShapedTree(t testing.TB, dir string, ndirs int) int {
	t.Helper()
	rng := rand.New(rand.NewPCG(34, 41))
	big := []int{880, 780, 400, 350, 320, 260, 250, 240, 170, 130}
	type node struct {
		path  string
		depth int
	}
	dirs := []node{{"", 0}}
	n := 0
	step := ndirs / len(big)
	for i := range ndirs {
		parent := dirs[rng.IntN(len(dirs))]
		for parent.depth >= 6 {
			parent = dirs[rng.IntN(len(dirs))]
		}
		p := path.Join(parent.path, fmt.Sprintf("d%04d", i))
		dirs = append(dirs, node{p, parent.depth + 1})
		mkdirAll(t, dir, p)
		files := rng.IntN(13)
		if i%step == 7 && i/step < len(big) {
			files = big[i/step]
		}
		for f := range files {
			name := filepath.Join(dir, filepath.FromSlash(p), fmt.Sprintf("f%03d.go", f))
			if err := os.WriteFile(name, fmt.Appendf(nil, "package p // %d/%d\n", i, f), 0o644); err != nil {
				t.Fatal(err)
			}
			n++
		}
	}
	return n
}
