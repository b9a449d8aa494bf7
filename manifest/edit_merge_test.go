package manifest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/turnback/turnback/cas"
)

// PutBlob makes memStore a Saver: it keeps the encoding under its hash.
func (s *memStore) PutBlob(_ context.Context, data []byte) (cas.Hash, error) {
	h := cas.Sum(data)
	s.mu.Lock()
	s.trees[h] = slices.Clone(data)
	s.mu.Unlock()
	return h, nil
}

// editRef is Edit as it was before it merged sorted entries: a map of
// the old entries by name, then a sort. TestEditMatchesReference holds
// Edit to it.
func editRef(ctx context.Context, l Loader, s Saver, root cas.Hash, changes map[string]*Entry) (cas.Hash, error) {
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
				return cas.Hash{}, err
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
	return applyRef(ctx, top, l, s, ".", root, true)
}

func applyRef(ctx context.Context, n *editNode, l Loader, s Saver, dir string, h cas.Hash, exists bool) (cas.Hash, error) {
	var t *Tree
	if exists && !h.IsZero() && h != EmptyTreeHash() {
		var err error
		if t, err = l.LoadTree(ctx, h); err != nil {
			return cas.Hash{}, err
		}
	}
	byName := map[string]Entry{}
	if t != nil {
		for _, e := range t.Entries {
			byName[e.Name] = e
		}
	}
	for name, k := range n.kids {
		p := name
		if dir != "." {
			p = dir + "/" + name
		}
		old, had := byName[name]
		if k.set && k.entry == nil {
			delete(byName, name)
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
			return cas.Hash{}, fmt.Errorf("edit %q: parent directory does not exist", p)
		}
		if e.Kind == KindDir && !e.Uncaptured {
			keep := had && old.Kind == KindDir && !old.Uncaptured
			sub, err := applyRef(ctx, k, l, s, p, old.Hash, keep)
			if err != nil {
				return cas.Hash{}, err
			}
			e.Hash, e.Size, e.Files = sub, 0, 0
		} else if len(k.kids) > 0 && !k.set {
			return cas.Hash{}, fmt.Errorf("edit %q: changes below a %s", p, e.Kind)
		}
		byName[name] = e
	}
	out := &Tree{}
	for _, e := range byName {
		out.Entries = append(out.Entries, e)
	}
	out.Sort()
	data, err := out.Encode()
	if err != nil {
		return cas.Hash{}, err
	}
	return s.PutBlob(ctx, data)
}

// editFixture stores a random tree two levels deep and returns its root
// and every path in it.
func editFixture(t *testing.T, r *rand.Rand, s *memStore) (cas.Hash, []string) {
	t.Helper()
	var paths []string
	var top []Entry
	for i := range 3 + r.IntN(30) {
		name := fmt.Sprintf("n%02d", i*3+r.IntN(3))
		if slices.ContainsFunc(top, func(e Entry) bool { return e.Name == name }) {
			continue
		}
		paths = append(paths, name)
		if r.IntN(3) > 0 {
			top = append(top, file(name, name+fmt.Sprint(r.IntN(5))))
			continue
		}
		var kids []Entry
		for j := range r.IntN(12) {
			kid := fmt.Sprintf("k%02d", j*2+r.IntN(2))
			if slices.ContainsFunc(kids, func(e Entry) bool { return e.Name == kid }) {
				continue
			}
			kids = append(kids, file(kid, kid))
			paths = append(paths, name+"/"+kid)
		}
		top = append(top, dir(name, s.put(t, kids...)))
	}
	return s.put(t, top...), paths
}

// TestEditMatchesReference: on random trees and random changes (files
// set, added, removed; directories added, removed, edited below; paths
// whose parent does not exist), Edit gives the tree, or fails where,
// editRef does.
func TestEditMatchesReference(t *testing.T) {
	ctx := t.Context()
	r := rand.New(rand.NewPCG(34, 7))
	for i := range 400 {
		s := newStore()
		root, paths := editFixture(t, r, s)
		changes := map[string]*Entry{}
		for range 1 + r.IntN(8) {
			var p string
			switch r.IntN(4) {
			case 0, 1:
				p = paths[r.IntN(len(paths))]
			case 2:
				p = fmt.Sprintf("n%02d", r.IntN(100))
			default:
				p = fmt.Sprintf("n%02d/k%02d", r.IntN(100), r.IntN(30))
			}
			switch r.IntN(5) {
			case 0:
				changes[p] = nil
			case 1:
				e := dir("", cas.Hash{})
				e.Mode = 0o700
				changes[p] = &e
			default:
				e := file("", fmt.Sprint("new ", i, p))
				changes[p] = &e
			}
		}
		got, gerr := Edit(ctx, s, s, root, changes)
		want, werr := editRef(ctx, s, s, root, changes)
		if (gerr == nil) != (werr == nil) || got != want {
			t.Fatalf("case %d, changes %v: Edit = %s, %v; reference %s, %v", i, changeList(changes), got.Short(), gerr, want.Short(), werr)
		}
	}
}

// TestEditUnsortedLoader: a Loader that hands back a tree out of order
// (one not decoded from a store) still gets the tree Edit gave before.
func TestEditUnsortedLoader(t *testing.T) {
	ctx := t.Context()
	s := newStore()
	sorted := &Tree{Entries: []Entry{file("a", "a"), file("b", "b"), file("c", "c"), file("d", "d")}}
	h, _, err := sorted.Hash()
	if err != nil {
		t.Fatal(err)
	}
	unsorted := &Tree{Entries: []Entry{file("d", "d"), file("b", "b"), file("a", "a"), file("c", "c")}}
	l := memLoader{h: unsorted}
	e := file("", "new")
	changes := map[string]*Entry{"b": &e, "c": nil, "aa": &e}
	got, err := Edit(ctx, l, s, h, changes)
	if err != nil {
		t.Fatal(err)
	}
	want, err := editRef(ctx, l, s, h, changes)
	if err != nil {
		t.Fatal(err)
	}
	if got != want {
		t.Fatalf("Edit over an unsorted tree = %s, want %s", got.Short(), want.Short())
	}
	if unsorted.Entries[0].Name != "d" {
		t.Error("Edit reordered the loader's tree")
	}
}

func changeList(changes map[string]*Entry) []string {
	var out []string
	for p, e := range changes {
		switch {
		case e == nil:
			out = append(out, "-"+p)
		case e.Kind == KindDir:
			out = append(out, p+"/")
		default:
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out
}
