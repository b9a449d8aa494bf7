package turnback

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkSnapTree measures what a CLI "snap" without a daemon does in
// process: open the store, capture, record, close. The work tree is
// $TURNBACK_BENCH_TREE (a copy of a real tree, such as bench's Go
// tree); unset, the benchmark is skipped. A first snap runs before the
// timer: every timed one is a no-change capture.
//
//	TURNBACK_BENCH_TREE=/tmp/go go test -run '^$' -bench SnapTree -benchmem .
func BenchmarkSnapTree(b *testing.B) {
	tree := os.Getenv("TURNBACK_BENCH_TREE")
	if tree == "" {
		b.Skip("TURNBACK_BENCH_TREE not set")
	}
	ctx := context.Background()
	opts := Options{Store: filepath.Join(b.TempDir(), "store"), Local: true}
	snap := func() {
		r, err := Open(ctx, tree, opts)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := r.Snap(ctx, ""); err != nil {
			b.Fatal(err)
		}
		if err := r.Close(); err != nil {
			b.Fatal(err)
		}
	}
	snap()
	snap() // the records of entries inside the racy window
	b.ReportAllocs()
	for b.Loop() {
		snap()
	}
}
