//go:build linux && (amd64 || arm64)

package walker

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync/atomic"
	"testing"
	"time"
)

// TestWorkersWarm: a capture that reads no file, and lists no directory
// slowly, starts no more than max(4, GOMAXPROCS) workers; one that reads
// files may start up to Options.Workers.
func TestWorkersWarm(t *testing.T) {
	dir := t.TempDir()
	genTree(t, dir, 60, 2)
	time.Sleep(settle)
	s := newStore(t)
	cache := NewStatCache(s.Backend())
	var most atomic.Int64
	testHookWorkers = func(n int) {
		for m := most.Load(); int64(n) > m && !most.CompareAndSwap(m, int64(n)); m = most.Load() {
		}
	}
	old := slowListing
	t.Cleanup(func() { testHookWorkers, slowListing = nil, old })
	slowListing = time.Hour // a loaded machine lists slowly
	warm := max(4, runtime.GOMAXPROCS(0))
	r1 := snap(t, dir, s, Options{Cache: cache, Workers: 32})
	for range 5 {
		most.Store(0)
		r := snap(t, dir, s, Options{Cache: cache, Workers: 32, Previous: r1.Root})
		if r.Stats.HashedFiles != 0 {
			t.Fatalf("setup: a no-change capture read %d files", r.Stats.HashedFiles)
		}
		if n := most.Load(); n > int64(warm) {
			t.Fatalf("no-change capture: %d workers at once, want at most %d", n, warm)
		}
	}
	// Every file changed: past warmReads reads the bound is
	// Options.Workers.
	for i := range 20 {
		for d := range 60 {
			p := filepath.Join(dir, fmt.Sprintf("d%02d/e%d/f000.txt", d, d%3))
			if err := os.WriteFile(p, fmt.Appendf(nil, "edit %d\n", i), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		most.Store(0)
		r := snap(t, dir, s, Options{Cache: cache, Workers: 32, Previous: r1.Root})
		if r.Stats.HashedFiles < warmReads {
			t.Fatalf("setup: read %d files", r.Stats.HashedFiles)
		}
		if most.Load() > int64(warm) {
			return
		}
	}
	t.Errorf("reading files: never more than %d workers", warm)
}
