package manifest

import (
	"context"
	"errors"
	"testing"

	"github.com/turnback/turnback/cas"
)

// blobStore is a BlobGetter over a map that counts gets.
type blobStore struct {
	blobs map[cas.Hash][]byte
	gets  int
}

var errNoBlob = errors.New("no such blob")

func (s *blobStore) GetBlob(_ context.Context, h cas.Hash) ([]byte, error) {
	s.gets++
	b, ok := s.blobs[h]
	if !ok {
		return nil, errNoBlob
	}
	return b, nil
}

// encTree encodes a tree of one file named name and returns its hash.
func encTree(t *testing.T, s *blobStore, name string) cas.Hash {
	t.Helper()
	tr := &Tree{Entries: []Entry{{Name: name, Kind: KindFile, Mode: 0o644, Hash: cas.Sum([]byte(name)), Size: int64(len(name))}}}
	data, err := tr.Encode()
	if err != nil {
		t.Fatal(err)
	}
	h := cas.Sum(data)
	s.blobs[h] = data
	return h
}

// TestTreeCacheLoads: a cached loader reads each tree from the store
// once, hands out a fresh tree every time (a caller changing its tree
// changes nothing for the next), forgets everything at Clear, and errors
// from the store are not cached.
func TestTreeCacheLoads(t *testing.T) {
	ctx := context.Background()
	s := &blobStore{blobs: map[cas.Hash][]byte{}}
	a, b := encTree(t, s, "a.txt"), encTree(t, s, "b.txt")
	c := NewTreeCache(0)
	l := NewCachedStoreLoader(s, c)
	steps := []struct {
		name     string
		load     cas.Hash
		clear    bool
		wantGets int
		wantErr  bool
	}{
		{name: "first load of a", load: a, wantGets: 1},
		{name: "a again: cached", load: a, wantGets: 1},
		{name: "b", load: b, wantGets: 2},
		{name: "b again", load: b, wantGets: 2},
		{name: "a after clear", load: a, clear: true, wantGets: 3},
		{name: "missing tree", load: cas.Sum([]byte("nothing")), wantGets: 4, wantErr: true},
		{name: "missing again: not cached", load: cas.Sum([]byte("nothing")), wantGets: 5, wantErr: true},
	}
	for _, st := range steps {
		if st.clear {
			c.Clear()
		}
		tr, err := l.LoadTree(ctx, st.load)
		if (err != nil) != st.wantErr {
			t.Fatalf("%s: err %v, want error %v", st.name, err, st.wantErr)
		}
		if s.gets != st.wantGets {
			t.Fatalf("%s: %d gets from the store, want %d", st.name, s.gets, st.wantGets)
		}
		if err == nil {
			tr.Entries[0].Name = "changed by the caller"
			again, err := l.LoadTree(ctx, st.load)
			if err != nil || again.Entries[0].Name == "changed by the caller" || s.gets != st.wantGets {
				t.Fatalf("%s: a second load gave %+v, %v: a caller's change leaked into the cache", st.name, again, err)
			}
		}
	}
	var nilCache *TreeCache
	nilCache.Add(a, s.blobs[a])
	nilCache.Clear()
	if _, ok := nilCache.get(a); ok || nilCache.Len() != 0 {
		t.Fatal("a nil TreeCache holds something")
	}
}

// TestTreeCacheBound: the cache keeps at most its size in encodings in
// two generations; a tree in use moves to the newer one and stays while
// trees used once age out; an encoding over a generation is not kept.
func TestTreeCacheBound(t *testing.T) {
	s := &blobStore{blobs: map[cas.Hash][]byte{}}
	var hs []cas.Hash
	for _, n := range []string{"a", "b", "c", "d", "e", "f", "g", "h"} {
		hs = append(hs, encTree(t, s, n))
	}
	size := len(s.blobs[hs[0]])
	c := NewTreeCache(2 * 3 * size) // three trees per generation
	for _, h := range hs[:3] {
		c.Add(h, s.blobs[h])
	}
	if c.Len() != 3 {
		t.Fatalf("holds %d trees, want 3", c.Len())
	}
	c.Add(hs[3], s.blobs[hs[3]])    // a, b, c become the old generation
	if _, ok := c.get(hs[0]); !ok { // a is used: back in the new one
		t.Fatal("a was dropped while in the old generation")
	}
	c.Add(hs[4], s.blobs[hs[4]]) // new: d, a, e
	c.Add(hs[5], s.blobs[hs[5]]) // generation full: old d, a, e; new f
	for i, want := range []bool{true, false, false, true, true, true, false, false} {
		if _, ok := c.get(hs[i]); ok != want {
			t.Errorf("tree %d held: %v, want %v", i, ok, want)
		}
	}
	big := make([]byte, 4*size)
	c.Add(cas.Sum(big), big)
	if _, ok := c.get(cas.Sum(big)); ok {
		t.Fatal("an encoding larger than a generation was kept")
	}
}
