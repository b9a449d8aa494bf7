package manifest

import (
	"context"
	"fmt"
	"io/fs"

	"github.com/turnback/turnback/cas"
)

// Loader fetches a stored tree by its hash.
type Loader interface {
	LoadTree(ctx context.Context, h cas.Hash) (*Tree, error)
}

// BlobGetter is the one thing a StoreLoader needs of a store: a blob by
// its address. *cas.Store has it.
type BlobGetter interface {
	GetBlob(ctx context.Context, h cas.Hash) ([]byte, error)
}

// StoreLoader is the Loader over a store: it fetches a tree's encoding
// and decodes it. It keeps nothing between calls (wrap it in a
// CachingLoader to remember decoded trees), unless it was made with a
// TreeCache (NewCachedStoreLoader), which remembers encodings. Errors
// from the store are returned as they are; an encoding Decode rejects,
// wrapped as Decode wraps it.
type StoreLoader struct {
	s     BlobGetter
	cache *TreeCache
}

// NewStoreLoader returns a Loader reading trees from s: what anything
// that reads stored trees (undo, diff, gc, a capture's previous
// snapshot) uses.
func NewStoreLoader(s BlobGetter) *StoreLoader { return &StoreLoader{s: s} }

// LoadTree implements Loader.
func (l *StoreLoader) LoadTree(ctx context.Context, h cas.Hash) (*Tree, error) {
	if l.cache != nil {
		return l.loadCached(ctx, h)
	}
	data, err := l.s.GetBlob(ctx, h)
	if err != nil {
		return nil, err
	}
	return Decode(data)
}

// MaxDepth bounds how deep Walk and Diff descend, so that a store that
// hands back a cycle produces an error instead of endless recursion.
const MaxDepth = 4096

// loadTree returns the tree with hash h. The zero hash and EmptyTreeHash
// mean the empty tree and are never passed to the loader. dir is the
// slash-separated path of the directory, "" for the root, used in errors.
func loadTree(ctx context.Context, l Loader, dir string, h cas.Hash, depth int) (*Tree, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if h.IsZero() || h == EmptyTreeHash() {
		return &Tree{}, nil
	}
	if depth > MaxDepth {
		return nil, fmt.Errorf("manifest: load tree of %q: deeper than %d levels", DisplayPath(dir), MaxDepth)
	}
	t, err := l.LoadTree(ctx, h)
	if err != nil {
		return nil, fmt.Errorf("manifest: load tree of %q: %w", DisplayPath(dir), err)
	}
	if t == nil {
		return nil, fmt.Errorf("manifest: load tree of %q: loader returned no tree for %s", DisplayPath(dir), h.Short())
	}
	if err := t.Validate(); err != nil {
		return nil, fmt.Errorf("manifest: load tree of %q: %w", DisplayPath(dir), err)
	}
	return t, nil
}

// Walk calls fn for every entry below the tree root, in depth-first
// pre-order, sorted by name at each level; path is slash-separated and
// relative to the root. It descends into captured directories only. A zero
// root means the empty tree.
//
// fn receives a copy of the entry. If fn returns fs.SkipDir for a
// directory, Walk skips that directory's contents; for any other entry it
// skips the remaining entries of the containing directory. fs.SkipAll stops
// the walk with a nil result. Any other error stops the walk and is
// returned as is.
func Walk(ctx context.Context, l Loader, root cas.Hash, fn func(path string, e *Entry) error) error {
	w := walker{ctx: ctx, l: l, fn: fn, skip: true}
	err := w.walk("", root, 0)
	if err == fs.SkipDir || err == fs.SkipAll {
		return nil
	}
	return err
}

type walker struct {
	ctx  context.Context
	l    Loader
	fn   func(path string, e *Entry) error
	skip bool // honour fs.SkipDir and fs.SkipAll
}

// walk visits the entries of the tree h, the directory at path dir.
func (w *walker) walk(dir string, h cas.Hash, depth int) error {
	t, err := loadTree(w.ctx, w.l, dir, h, depth)
	if err != nil {
		return err
	}
	for i := range t.Entries {
		if err := w.ctx.Err(); err != nil {
			return err
		}
		orig := &t.Entries[i]
		e := *orig // fn may scribble on its copy, not on the tree
		p := JoinPath(dir, orig.Name)
		err := w.fn(p, &e)
		if w.skip && err == fs.SkipDir {
			if orig.Kind == KindDir {
				continue
			}
			return fs.SkipDir // skip the rest of dir
		}
		if err != nil {
			return err
		}
		if !orig.IsCapturedDir() {
			continue
		}
		err = w.walk(p, orig.Hash, depth+1)
		if w.skip && err == fs.SkipDir {
			continue // a child skipped the rest of p
		}
		if err != nil {
			return err
		}
	}
	return nil
}
