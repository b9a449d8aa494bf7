package manifest

import (
	"context"
	"errors"
	"testing"

	"github.com/turnback/turnback/cas"
)

// checkingGetter is a BlobGetter over a memStore's encodings that, as
// cas.Store does, checks each blob against its address, and counts
// reads.
type checkingGetter struct {
	s     *memStore
	reads int
}

var errDamaged = errors.New("blob does not match its address")

func (g *checkingGetter) GetBlob(_ context.Context, h cas.Hash) ([]byte, error) {
	g.reads++
	g.s.mu.Lock()
	defer g.s.mu.Unlock()
	b, ok := g.s.trees[h]
	if !ok {
		return nil, cas.ErrNotFound
	}
	if cas.Sum(b) != h {
		return nil, errDamaged
	}
	return b, nil
}

// TestReread: Reread reads the store for every load, takes the decoded
// tree from its CachingLoader when that holds it, and fails on a tree
// damaged in the store after the CachingLoader loaded it.
func TestReread(t *testing.T) {
	ctx := t.Context()
	s := newStore()
	h := s.put(t, file("a", "a"), file("b", "b"))
	g := &checkingGetter{s: s}
	shared := NewCachingLoader(NewStoreLoader(g))
	if _, ok := shared.Cached(h); ok {
		t.Fatal("Cached holds a tree before any load")
	}
	first, err := shared.LoadTree(ctx, h)
	if err != nil {
		t.Fatal(err)
	}
	if c, ok := shared.Cached(h); !ok || c != first {
		t.Fatalf("Cached after a load = %p, %v; want the tree loaded", c, ok)
	}
	for _, c := range []struct {
		name    string
		decoded *CachingLoader
		same    bool // the shared tree itself comes back
	}{{"shared", shared, true}, {"nil", nil, false}, {"empty", NewCachingLoader(s), false}} {
		t.Run(c.name, func(t *testing.T) {
			l := NewReread(g, c.decoded)
			before := g.reads
			for range 2 {
				got, err := l.LoadTree(ctx, h)
				if err != nil {
					t.Fatal(err)
				}
				if (got == first) != c.same || len(got.Entries) != 2 || got.Entries[1].Name != "b" {
					t.Fatalf("LoadTree = %+v (shared: %v)", got, got == first)
				}
			}
			if g.reads-before != 2 {
				t.Errorf("two loads read the store %d times; want 2", g.reads-before)
			}
		})
	}
	// Damaged in the store after the shared loader decoded it.
	s.mu.Lock()
	good := s.trees[h]
	bad := append([]byte(nil), good...)
	bad[len(bad)-1] ^= 1
	s.trees[h] = bad
	s.mu.Unlock()
	if _, err := shared.LoadTree(ctx, h); err != nil {
		t.Fatalf("the shared loader (a cache) = %v; it answers from memory", err)
	}
	if _, err := NewReread(g, shared).LoadTree(ctx, h); !errors.Is(err, errDamaged) {
		t.Fatalf("Reread of a tree damaged since it was loaded = %v; want the store's error", err)
	}
}
