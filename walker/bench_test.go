//go:build unix

package walker

import (
	"context"
	"testing"
	"time"
)

// BenchmarkCaptureNoChange: the common case of a capture at every turn,
// a 5,000-file tree that did not change, with the stat cache and the
// previous snapshot.
func BenchmarkCaptureNoChange(b *testing.B) {
	dir := b.TempDir()
	n := genTree(b, dir, 50, 100)
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
