//go:build unix

package walker

import (
	"bytes"
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/turnback/turnback/cas"
)

// blobCounter counts the blobs (trees and file contents) read from its
// backend.
type blobCounter struct {
	*cas.Memory
	gets atomic.Int64
}

func (b *blobCounter) Get(ctx context.Context, key []byte) ([]byte, error) {
	if bytes.HasPrefix(key, cas.BlobKey(cas.Hash{})[:len(cas.BlobKey(cas.Hash{}))-cas.HashSize]) {
		b.gets.Add(1)
	}
	return b.Memory.Get(ctx, key)
}

// TestPrevFromRecord: a capture whose previous snapshot is the one the
// stat cache's records were written for reads no tree of it from the
// store (each directory's record names its subdirectories); when the
// records describe other trees (Previous is an older snapshot) the
// trees are loaded, and in both cases the large-new-directory rule
// decides as a capture without a cache does.
func TestPrevFromRecord(t *testing.T) {
	const limit = 20
	dir := t.TempDir()
	genTree(t, dir, 6, 4)
	addFiles(t, dir, "grows", limit-5)
	time.Sleep(settle)
	b := &blobCounter{Memory: cas.NewMemory()}
	s := newStoreOn(t, b)
	cache := NewStatCache(s.Backend())
	opts := func(prev cas.Hash, c *StatCache) Options {
		return Options{LargeDirFiles: limit, Previous: prev, Cache: c}
	}
	c1 := snap(t, dir, s, opts(cas.Hash{}, cache))
	b.gets.Store(0)
	c2 := snap(t, dir, s, opts(c1.Root, cache))
	if n := b.gets.Load(); n != 0 || c2.Root != c1.Root || c2.Stats.HashedFiles != 0 {
		t.Fatalf("no-change capture: %d blobs read, root changed %v, %d files read; want 0, false, 0", n, c2.Root != c1.Root, c2.Stats.HashedFiles)
	}

	// A new large directory: uncaptured, as without the cache.
	addFiles(t, dir, "big", limit+5)
	addFiles(t, dir, "grows", limit+5)
	c3 := snap(t, dir, s, opts(c1.Root, cache))
	if want := snap(t, dir, s, opts(c1.Root, nil)); c3.Root != want.Root {
		t.Fatalf("new large dir: root %s, without cache %s", c3.Root.Short(), want.Root.Short())
	}
	if u, ok := findUncaptured(c3, "big"); !ok || !strings.Contains(u.Reason, "new directory") {
		t.Fatalf("big: %+v, want uncaptured as new", c3.Stats.Uncaptured)
	}
	// The records now describe c3's trees. Against the older c1 they do
	// not hold: the trees are loaded, big is new again.
	b.gets.Store(0)
	c4 := snap(t, dir, s, opts(c1.Root, cache))
	if b.gets.Load() == 0 || c4.Root != c3.Root {
		t.Errorf("against an older snapshot: %d blobs read (want some), root %s want %s", b.gets.Load(), c4.Root.Short(), c3.Root.Short())
	}
	// Against c3 they hold: big stays uncaptured (sticky) with no tree
	// loaded, even once shrunk.
	removeAll(t, dir, "big/inner")
	b.gets.Store(0)
	c5 := snap(t, dir, s, opts(c3.Root, cache))
	if n := b.gets.Load(); n != 0 {
		t.Errorf("shrunk big against c3: %d blobs read, want 0", n)
	}
	want := snap(t, dir, s, opts(c3.Root, nil))
	if c5.Root != want.Root {
		t.Fatalf("shrunk big: root %s, without cache %s", c5.Root.Short(), want.Root.Short())
	}
	if u, ok := findUncaptured(c5, "big"); !ok || !strings.Contains(u.Reason, "since it appeared") {
		t.Errorf("shrunk big: %+v, want uncaptured since it appeared", c5.Stats.Uncaptured)
	}
}
