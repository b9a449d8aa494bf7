package manifest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/turnback/turnback/cas"
)

// Saver stores an encoded tree and returns its address. It is declared
// here, by its user; cas.Writer's PutBlob fits it.
type Saver interface {
	PutBlob(ctx context.Context, data []byte) (cas.Hash, error)
}

// ErrNoParent is wrapped by Edit's error for a change whose parent
// directory neither root nor the changes hold.
var ErrNoParent = errors.New("parent directory does not exist")

// Edit returns the root of a tree equal to root with the given changes:
// each path maps to its new entry, or to nil to remove it (with
// everything below it). Directory entries are structural: a directory
// entry keeps (or, when new, starts without) its children, takes the new
// entry's Mode, and its hash is recomputed from the edited children;
// the Hash of a directory entry in changes is ignored. Changes below a
// path replaced by something other than a captured directory are
// ignored (they are the removal of its old contents). The Name of each
// new entry is set from the path. Parent directories of a changed path
// must exist in root or be created by changes.
func Edit(ctx context.Context, l Loader, s Saver, root cas.Hash, changes map[string]*Entry) (cas.Hash, error) {
	top := &editNode{}
	paths := make([]string, 0, len(changes))
	for p := range changes {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		n := top
		for _, name := range strings.Split(p, "/") {
			if err := ValidName(name); err != nil {
				return cas.Hash{}, fmt.Errorf("manifest: edit %q: %w", p, err)
			}
			if n.kids == nil {
				n.kids = map[string]*editNode{}
			}
			k, ok := n.kids[name]
			if !ok {
				k = &editNode{}
				n.kids[name] = k
			}
			n = k
		}
		n.set, n.entry = true, changes[p]
	}
	h, _, err := top.apply(ctx, l, s, ".", root, true)
	return h, err
}

func editOrder(a, b Entry) int { return strings.Compare(a.Name, b.Name) }

type editNode struct {
	set   bool   // this path itself changes
	entry *Entry // its new entry; nil removes it
	kids  map[string]*editNode
}

// apply edits the directory whose tree is h (absent when !exists) and
// returns its new tree hash.
func (n *editNode) apply(ctx context.Context, l Loader, s Saver, dir string, h cas.Hash, exists bool) (cas.Hash, bool, error) {
	if err := ctx.Err(); err != nil {
		return cas.Hash{}, false, err
	}
	var t *Tree
	if exists && !h.IsZero() && h != EmptyTreeHash() {
		var err error
		if t, err = l.LoadTree(ctx, h); err != nil {
			return cas.Hash{}, false, fmt.Errorf("manifest: edit: load tree of %q: %w", dir, err)
		}
	}
	// The old entries merged in one pass with the changed names, both
	// sorted: no map, no sort of a large tree. A decoded tree is sorted;
	// one a Loader built otherwise is sorted here first.
	var olds []Entry
	if t != nil {
		olds = t.Entries
		if !slices.IsSortedFunc(olds, editOrder) {
			olds = slices.SortedStableFunc(slices.Values(olds), editOrder)
		}
	}
	names := make([]string, 0, len(n.kids))
	for name := range n.kids {
		names = append(names, name)
	}
	sort.Strings(names)
	out := &Tree{Entries: make([]Entry, 0, len(olds)+len(names))}
	i := 0
	for _, name := range names {
		for i < len(olds) && olds[i].Name < name {
			out.Entries = append(out.Entries, olds[i])
			i++
		}
		var old Entry
		had := i < len(olds) && olds[i].Name == name
		if had {
			old = olds[i]
			i++
		}
		k := n.kids[name]
		p := name
		if dir != "." {
			p = dir + "/" + name
		}
		if k.set && k.entry == nil {
			continue
		}
		var e Entry
		switch {
		case k.set:
			e = *k.entry
			e.Name = name
		case had:
			e = old
		default:
			return cas.Hash{}, false, fmt.Errorf("manifest: edit %q: %w", p, ErrNoParent)
		}
		if e.Kind == KindDir && !e.Uncaptured {
			keep := had && old.Kind == KindDir && !old.Uncaptured
			sub, _, err := k.apply(ctx, l, s, p, old.Hash, keep)
			if err != nil {
				return cas.Hash{}, false, err
			}
			e.Hash, e.Size, e.Files = sub, 0, 0
		} else if len(k.kids) > 0 && !k.set {
			return cas.Hash{}, false, fmt.Errorf("manifest: edit %q: changes below a %s", p, e.Kind)
		}
		// Changes below an entry replaced by a file, symlink or uncaptured
		// directory describe what the replacement removed: nothing to do.
		out.Entries = append(out.Entries, e)
	}
	out.Entries = append(out.Entries, olds[i:]...)
	data, err := out.Encode()
	if err != nil {
		return cas.Hash{}, false, fmt.Errorf("manifest: edit %q: %w", dir, err)
	}
	sum, err := s.PutBlob(ctx, data)
	if err != nil {
		return cas.Hash{}, false, err
	}
	return sum, true, nil
}

// Find returns the entry at path p in the tree root, or nil if there is
// none (also when a parent is not a captured directory).
func Find(ctx context.Context, l Loader, root cas.Hash, p string) (*Entry, error) {
	if s := scanning(l); s != nil {
		return findScanned(ctx, s, root, p)
	}
	h := root
	names := strings.Split(p, "/")
	for i, name := range names {
		if h.IsZero() || h == EmptyTreeHash() {
			return nil, nil
		}
		t, err := l.LoadTree(ctx, h)
		if err != nil {
			return nil, fmt.Errorf("manifest: find %q: %w", p, err)
		}
		e, ok := t.Lookup(name)
		if !ok {
			return nil, nil
		}
		if i == len(names)-1 {
			c := *e
			return &c, nil
		}
		if !e.IsCapturedDir() {
			return nil, nil
		}
		h = e.Hash
	}
	return nil, nil
}

// CachingLoader remembers the trees it has loaded. Safe for concurrent
// use.
type CachingLoader struct {
	l   Loader
	mu  sync.Mutex
	m   map[cas.Hash]*Tree
	enc map[cas.Hash]*encodedTree // encodings Diff or Find read, not decoded yet
}

// NewCachingLoader wraps l.
func NewCachingLoader(l Loader) *CachingLoader {
	return &CachingLoader{l: l, m: map[cas.Hash]*Tree{}, enc: map[cas.Hash]*encodedTree{}}
}

// LoadTree implements Loader. Callers must not modify the tree.
func (c *CachingLoader) LoadTree(ctx context.Context, h cas.Hash) (*Tree, error) {
	c.mu.Lock()
	t, ok := c.m[h]
	enc := c.enc[h]
	c.mu.Unlock()
	if ok {
		return t, nil
	}
	var err error
	if enc != nil {
		t, err = Decode(enc.data) // checked when it was read
	} else {
		t, err = c.l.LoadTree(ctx, h)
	}
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	c.m[h] = t
	c.mu.Unlock()
	return t, nil
}
