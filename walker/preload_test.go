//go:build unix

package walker

import (
	"context"
	"testing"
	"time"

	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/manifest/treetest"
)

// TestStatCachePreload: a full capture reads the stat cache in one scan;
// with the scan cut short by its size bound (here after a few records),
// the records past the cut are read one at a time, so a no-change
// capture still reads no file at any bound; a damaged record, in the
// scan or past it, only makes its directory's files be read again.
func TestStatCachePreload(t *testing.T) {
	dir := t.TempDir()
	n := int64(genTree(t, dir, 10, 5))
	treetest.MustWrite(t, dir, treetest.Tree{"top.txt": treetest.File("top", 0o644)})
	n++
	time.Sleep(settle)
	s := newStore(t)
	cache := NewStatCache(s.Backend())
	r1 := snap(t, dir, s, Options{Cache: cache})
	if r1.Stats.HashedFiles != n {
		t.Fatalf("first capture read %d files, want %d", r1.Stats.HashedFiles, n)
	}
	keys := cacheKeys(t, s.Backend())
	if len(keys) < 8 {
		t.Fatalf("setup: %d cache records", len(keys))
	}
	old := preloadLimit
	t.Cleanup(func() { preloadLimit = old })
	// cut: a bound that lets the scan hold the first record only.
	data, err := s.Backend().Get(context.Background(), []byte(keys[0]))
	if err != nil {
		t.Fatal(err)
	}
	cut := len(keys[0]) + len(data)
	for _, limit := range []int{0, 1, cut, 3 * cut, old} {
		preloadLimit = limit
		r := snap(t, dir, s, Options{Cache: cache, Previous: r1.Root})
		if r.Stats.HashedFiles != 0 || r.Root != r1.Root {
			t.Errorf("limit %d: read %d files, root changed %v; want 0, same", limit, r.Stats.HashedFiles, r.Root != r1.Root)
		}
	}
	// Damage the first and the last record (in key order): with a bound
	// that cuts the scan between them, one is damaged in the scan and the
	// other past it.
	ctx := context.Background()
	first, last := keys[0], keys[len(keys)-1]
	firstDir, lastDir := first[len(cachePrefix):], last[len(cachePrefix):]
	want := int64(len(cacheRecord(cache, firstDir).entries) + len(cacheRecord(cache, lastDir).entries))
	for _, k := range []string{first, last} {
		if err := s.Backend().Set(ctx, cas.Entry{Key: []byte(k), Value: []byte{cacheVersion, 0xff}}); err != nil {
			t.Fatal(err)
		}
	}
	preloadLimit = cut
	r := snap(t, dir, s, Options{Cache: cache, Previous: r1.Root})
	if r.Stats.HashedFiles != want || r.Root != r1.Root {
		t.Errorf("damaged records: read %d files, want %d (the two directories'); root changed %v", r.Stats.HashedFiles, want, r.Root != r1.Root)
	}
	// The capture rewrote both: the next one reads nothing.
	if r := snap(t, dir, s, Options{Cache: cache, Previous: r1.Root}); r.Stats.HashedFiles != 0 {
		t.Errorf("after repair: read %d files, want 0", r.Stats.HashedFiles)
	}
}
