package manifest

import (
	"context"

	"github.com/turnback/turnback/cas"
)

// Cached returns tree h if c holds it, without loading it.
func (c *CachingLoader) Cached(h cas.Hash) (*Tree, bool) {
	if c == nil {
		return nil, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	t, ok := c.m[h]
	return t, ok
}

// Reread is a Loader for verification: every tree is read from the
// store again, never from a cache, so a tree damaged since it was last
// read fails here. Only the decoding is saved: when the bytes read
// check (s must verify each blob against its address, as cas.Store
// does) and decoded holds the tree of that address, that tree is it.
type Reread struct {
	s       BlobGetter
	decoded *CachingLoader
}

// NewReread returns a Reread over s; decoded may be nil.
func NewReread(s BlobGetter, decoded *CachingLoader) *Reread {
	return &Reread{s: s, decoded: decoded}
}

// LoadTree implements Loader. Callers must not modify the tree.
func (l *Reread) LoadTree(ctx context.Context, h cas.Hash) (*Tree, error) {
	data, err := l.s.GetBlob(ctx, h)
	if err != nil {
		return nil, err
	}
	if t, ok := l.decoded.Cached(h); ok {
		return t, nil
	}
	return Decode(data)
}
