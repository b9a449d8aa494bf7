package manifest

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"

	"github.com/turnback/turnback/cas"
)

// Diff and Find read trees through a StoreLoader, or a CachingLoader
// over one, as encodings. Each entry's encoding depends on the entry
// alone, so two entries with equal bytes are equal and Diff skips them
// without decoding. Only entries that differ become Entry values.

// scanLoader is a Loader that can also hand out a tree's encoding,
// checked and split into entries.
type scanLoader interface {
	// canScan reports whether loadScanned works.
	canScan() bool
	// loadScanned returns tree h: the error is the store's, or Decode's.
	loadScanned(ctx context.Context, h cas.Hash) (*encodedTree, error)
}

// scanning returns l as a scanLoader, if it is one that works.
func scanning(l Loader) scanLoader {
	if s, ok := l.(scanLoader); ok && s.canScan() {
		return s
	}
	return nil
}

func (l *StoreLoader) canScan() bool { return true }

func (l *StoreLoader) loadScanned(ctx context.Context, h cas.Hash) (*encodedTree, error) {
	if data, ok := l.cache.get(h); ok {
		return scanTree(data)
	}
	data, err := l.s.GetBlob(ctx, h)
	if err != nil {
		return nil, err
	}
	t, err := scanTree(data)
	if err == nil {
		l.cache.Add(h, data)
	}
	return t, err
}

func (c *CachingLoader) canScan() bool { return scanning(c.l) != nil }

// loadScanned remembers the encoding; LoadTree decodes it when asked.
func (c *CachingLoader) loadScanned(ctx context.Context, h cas.Hash) (*encodedTree, error) {
	c.mu.Lock()
	t, ok := c.enc[h]
	c.mu.Unlock()
	if ok {
		return t, nil
	}
	s := scanning(c.l)
	if s == nil {
		return nil, errors.New("manifest: loader cannot hand out encodings")
	}
	t, err := s.loadScanned(ctx, h)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	c.enc[h] = t
	c.mu.Unlock()
	return t, nil
}

// encodedTree is a checked encoding and where each of its entries ends.
type encodedTree struct {
	data []byte
	ends []int
	// first is the offset of the first entry.
	first   int
	version byte
}

// span returns the bytes of entry i.
func (t *encodedTree) span(i int) []byte {
	start := t.first
	if i > 0 {
		start = t.ends[i-1]
	}
	return t.data[start:t.ends[i]]
}

// name returns the name of entry i, sharing t's bytes.
func (t *encodedTree) name(i int) []byte {
	s := t.span(i)
	n, k := binary.Uvarint(s)
	return s[k : k+int(n)]
}

// entry decodes entry i into an Entry of its own.
func (t *encodedTree) entry(i int) (Entry, error) {
	start := t.first
	if i > 0 {
		start = t.ends[i-1]
	}
	d := decoder{b: t.data[:t.ends[i]], off: start, version: t.version}
	var e Entry
	err := d.entry(&e)
	return e, err
}

// scanTree checks data as Decode does and records its entries' ends.
// On failure it returns Decode's error.
func scanTree(data []byte) (*encodedTree, error) {
	var p parser
	err := p.start(data, true)
	t := &encodedTree{data: data}
	if err == nil {
		t.ends = make([]int, 0, min(p.count, maxPrealloc))
		t.first, t.version = p.d.off, p.d.version
	}
	for err == nil && p.more() {
		var e Entry // fresh: entry sets only the fields present
		if err = p.next(&e); err == nil {
			t.ends = append(t.ends, p.d.off)
		}
	}
	if err == nil {
		err = p.finish()
	}
	if err != nil {
		_, err = Decode(data) // its error, with strings of their own
		if err == nil {
			err = fmt.Errorf("%w: scan and decode disagree", ErrMalformed)
		}
		return nil, err
	}
	return t, nil
}

// loadEncoded is loadTree for a scanLoader.
func loadEncoded(ctx context.Context, l scanLoader, dir string, h cas.Hash, depth int) (*encodedTree, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if h.IsZero() || h == EmptyTreeHash() {
		return &encodedTree{}, nil
	}
	if depth > MaxDepth {
		return nil, fmt.Errorf("manifest: load tree of %q: deeper than %d levels", DisplayPath(dir), MaxDepth)
	}
	t, err := l.loadScanned(ctx, h)
	if err != nil {
		return nil, fmt.Errorf("manifest: load tree of %q: %w", DisplayPath(dir), err)
	}
	return t, nil
}

// search returns the index of the entry called name, if t has one.
func (t *encodedTree) search(name string) (int, bool) {
	lo, hi := 0, len(t.ends)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		switch c := bytes.Compare(t.name(m), []byte(name)); {
		case c == 0:
			return m, true
		case c < 0:
			lo = m + 1
		default:
			hi = m
		}
	}
	return 0, false
}

// findScanned is Find over encodings: it decodes one entry per tree.
func findScanned(ctx context.Context, l scanLoader, root cas.Hash, p string) (*Entry, error) {
	h := root
	names := strings.Split(p, "/")
	for i, name := range names {
		if h.IsZero() || h == EmptyTreeHash() {
			return nil, nil
		}
		t, err := l.loadScanned(ctx, h)
		if err != nil {
			return nil, fmt.Errorf("manifest: find %q: %w", p, err)
		}
		k, ok := t.search(name)
		if !ok {
			return nil, nil
		}
		e, err := t.entry(k)
		if err != nil {
			return nil, fmt.Errorf("manifest: find %q: %w", p, err)
		}
		if i == len(names)-1 {
			return &e, nil
		}
		if !e.IsCapturedDir() {
			return nil, nil
		}
		h = e.Hash
	}
	return nil, nil
}

// dirEncoded is dir over encodings.
func (d *differ) dirEncoded(l scanLoader, dir string, a, b cas.Hash, depth int) error {
	ta, err := loadEncoded(d.ctx, l, dir, a, depth)
	if err != nil {
		return err
	}
	tb, err := loadEncoded(d.ctx, l, dir, b, depth)
	if err != nil {
		return err
	}
	i, j := 0, 0
	for i < len(ta.ends) || j < len(tb.ends) {
		if err := d.ctx.Err(); err != nil {
			return err
		}
		c := 1 // compare the names: entry i is gone, or j came, or a pair
		switch {
		case j == len(tb.ends):
			c = -1
		case i < len(ta.ends):
			c = bytes.Compare(ta.name(i), tb.name(j))
		}
		switch {
		case c < 0:
			err = d.encGone(dir, ta, i, depth)
			i++
		case c > 0:
			err = d.encCame(dir, tb, j, depth)
			j++
		case bytes.Equal(ta.span(i), tb.span(j)):
			i, j = i+1, j+1 // equal entries: no change below either
		default:
			err = d.encPair(dir, ta, i, tb, j, depth)
			i, j = i+1, j+1
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func (d *differ) encGone(dir string, t *encodedTree, i, depth int) error {
	e, err := t.entry(i)
	if err != nil {
		return fmt.Errorf("manifest: load tree of %q: %w", DisplayPath(dir), err)
	}
	return d.gone(JoinPath(dir, e.Name), e, depth)
}

func (d *differ) encCame(dir string, t *encodedTree, i, depth int) error {
	e, err := t.entry(i)
	if err != nil {
		return fmt.Errorf("manifest: load tree of %q: %w", DisplayPath(dir), err)
	}
	return d.came(JoinPath(dir, e.Name), e, depth)
}

func (d *differ) encPair(dir string, ta *encodedTree, i int, tb *encodedTree, j, depth int) error {
	a, err := ta.entry(i)
	if err == nil {
		var b Entry
		if b, err = tb.entry(j); err == nil {
			return d.pair(JoinPath(dir, a.Name), a, b, depth)
		}
	}
	return fmt.Errorf("manifest: load tree of %q: %w", DisplayPath(dir), err)
}
