package manifest

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/turnback/turnback/cas"
)

// editOddNames sort differently under byte order, git's order (a
// directory compares as name+"/"), case folding and Unicode
// normalisation; a few are not UTF-8.
var editOddNames = []string{
	"A", "a", "a-", "a.b", "a0", "a~", "aa", "B", "b", " ", "-", "~",
	"é", "e\u0301", "\xff", "\xc3", "\xc3\xa9\xff", "a\tb", "..a", ".a",
}

// TestEditOddNamesMatchesReference holds the merging Edit to the map and
// sort one (editRef) on trees whose names are editOddNames, changed at
// the top and one level down. Each result must be the same tree, each
// error the same refusal.
func TestEditOddNamesMatchesReference(t *testing.T) {
	ctx := t.Context()
	r := rand.New(rand.NewPCG(34, 9))
	pick := func() string { return editOddNames[r.IntN(len(editOddNames))] }
	for i := range 600 {
		s := newStore()
		var top []Entry
		seen := map[string]bool{}
		var dirs []string
		for range 2 + r.IntN(12) {
			name := pick()
			if seen[name] {
				continue
			}
			seen[name] = true
			if r.IntN(3) > 0 {
				top = append(top, file(name, name))
				continue
			}
			var kids []Entry
			kseen := map[string]bool{}
			for range r.IntN(8) {
				k := pick()
				if !kseen[k] {
					kseen[k] = true
					kids = append(kids, file(k, name+"/"+k))
				}
			}
			top = append(top, dir(name, s.put(t, kids...)))
			dirs = append(dirs, name)
		}
		root := s.put(t, top...)
		changes := map[string]*Entry{}
		for range 1 + r.IntN(6) {
			p := pick()
			if len(dirs) > 0 && r.IntN(2) == 0 {
				p = dirs[r.IntN(len(dirs))] + "/" + pick()
			}
			switch r.IntN(4) {
			case 0:
				changes[p] = nil
			case 1:
				e := dir("", cas.Hash{})
				changes[p] = &e
			default:
				e := file("", fmt.Sprint("new ", i, p))
				changes[p] = &e
			}
		}
		got, gerr := Edit(ctx, s, s, root, changes)
		want, werr := editRef(ctx, s, s, root, changes)
		if (gerr == nil) != (werr == nil) || got != want {
			t.Fatalf("case %d, changes %q: Edit = %s, %v; reference %s, %v", i, changeList(changes), got.Short(), gerr, want.Short(), werr)
		}
		if gerr != nil {
			continue
		}
		// The result decodes: sorted, unique, valid.
		if _, err := s.LoadTree(ctx, got); err != nil {
			t.Fatalf("case %d: the edited root does not decode: %v", i, err)
		}
	}
}
