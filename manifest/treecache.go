package manifest

import (
	"context"
	"sync"

	"github.com/turnback/turnback/cas"
)

// TreeCache keeps the encodings of trees a process recently read from
// or wrote to a store, under their hashes, so that a long-running
// process (the watch daemon) fetches each tree from the store once
// instead of once per operation: an undo reads again the trees that the
// capture before it wrote or read. It holds encodings, not decoded
// trees: every load decodes afresh, so a caller that changes the tree it
// got cannot change what the next caller gets.
//
// Only bytes known to hash to their key go in: a tree read from the
// store (GetBlob checked it) or one a capture stored (see Add). The
// cache is bounded by bytes: it keeps two generations, and when the
// newer one is full the older is dropped, so the trees in use stay and
// the rest age out. Whatever takes trees out of the store (gc) must call
// Clear. A nil *TreeCache caches nothing.
type TreeCache struct {
	mu       sync.Mutex
	cur, old map[cas.Hash][]byte
	curBytes int
	limit    int // bytes per generation
}

// DefaultTreeCacheBytes bounds a TreeCache that NewTreeCache is given no
// size for: 32 MiB in all, about 500k entries' worth of trees.
const DefaultTreeCacheBytes = 32 << 20

// NewTreeCache returns an empty cache holding at most about maxBytes of
// encodings (DefaultTreeCacheBytes if maxBytes <= 0).
func NewTreeCache(maxBytes int) *TreeCache {
	if maxBytes <= 0 {
		maxBytes = DefaultTreeCacheBytes
	}
	return &TreeCache{cur: map[cas.Hash][]byte{}, limit: max(1, maxBytes/2)}
}

// get returns the encoding of tree h if the cache holds it.
func (c *TreeCache) get(h cas.Hash) ([]byte, bool) {
	if c == nil {
		return nil, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if data, ok := c.cur[h]; ok {
		return data, true
	}
	data, ok := c.old[h]
	if ok {
		c.addLocked(h, data) // in use: it moves to the newer generation
	}
	return data, ok
}

// Add remembers data as the encoding of tree h. The caller guarantees
// that data hashes to h and that the tree is in the store (a capture
// adds the trees it wrote once its writes are flushed); the cache keeps
// data, which must not change afterwards. An encoding larger than a
// generation is not kept.
func (c *TreeCache) Add(h cas.Hash, data []byte) {
	if c == nil || len(data) > c.limit {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.addLocked(h, data)
}

func (c *TreeCache) addLocked(h cas.Hash, data []byte) {
	if _, ok := c.cur[h]; ok {
		return
	}
	if c.curBytes+len(data) > c.limit {
		c.old, c.cur, c.curBytes = c.cur, map[cas.Hash][]byte{}, 0
	}
	c.cur[h] = data
	c.curBytes += len(data)
}

// Clear forgets every tree (after gc, which may have deleted some).
func (c *TreeCache) Clear() {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.cur, c.old, c.curBytes = map[cas.Hash][]byte{}, nil, 0
}

// Len returns how many trees the cache holds.
func (c *TreeCache) Len() int {
	if c == nil {
		return 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	n := len(c.cur)
	for h := range c.old {
		if _, ok := c.cur[h]; !ok {
			n++
		}
	}
	return n
}

// NewCachedStoreLoader returns a StoreLoader that looks in c before the
// store and remembers what it reads there. Use NewStoreLoader where the
// point is to read the store itself (verification).
func NewCachedStoreLoader(s BlobGetter, c *TreeCache) *StoreLoader {
	return &StoreLoader{s: s, cache: c}
}

// loadCached is LoadTree through the loader's cache.
func (l *StoreLoader) loadCached(ctx context.Context, h cas.Hash) (*Tree, error) {
	if data, ok := l.cache.get(h); ok {
		return Decode(data)
	}
	data, err := l.s.GetBlob(ctx, h)
	if err != nil {
		return nil, err
	}
	t, err := Decode(data)
	if err == nil {
		l.cache.Add(h, data)
	}
	return t, err
}
