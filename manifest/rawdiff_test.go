package manifest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/turnback/turnback/cas"
)

// GetBlob makes a memStore a BlobGetter over the same encodings.
func (s *memStore) GetBlob(_ context.Context, h cas.Hash) ([]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.fail[h]; err != nil {
		return nil, err
	}
	b, ok := s.trees[h]
	if !ok {
		return nil, fmt.Errorf("tree %s not found", h.Short())
	}
	return b, nil
}

// randEntry returns a random entry called name of any kind, with the
// fields only version 2 holds now and then. Dirs get hash h.
func randEntry(r *rand.Rand, name string, h cas.Hash) Entry {
	var e Entry
	switch k := r.IntN(12); {
	case k < 5:
		e = file(name, []string{"x", "y", "zz"}[r.IntN(3)])
		if r.IntN(6) == 0 {
			e.LinkTo = []string{"p/q", "r"}[r.IntN(2)]
		}
	case k < 6:
		e = uncFile(name, int64(1+r.IntN(2)))
		if r.IntN(2) == 0 {
			e.Hash = sum(name)
		}
	case k < 7:
		e = link(name, []string{"x", "../y"}[r.IntN(2)])
	case k < 8:
		e = Entry{Name: name, Kind: KindFIFO, Mode: 0o600}
	case k < 9:
		e = uncDir(name, int64(r.IntN(3)))
	default:
		e = dir(name, h)
	}
	if r.IntN(5) == 0 {
		e.Mode = 0o700
	}
	if r.IntN(8) == 0 {
		e.Owned, e.UID, e.GID = true, uint32(r.IntN(2)), 7
	}
	return e
}

// genPair stores two random trees that share most entries, as an old and
// a new state of a big directory do, and returns their hashes.
func genPair(t *testing.T, s *memStore, r *rand.Rand, depth int) (cas.Hash, cas.Hash) {
	var as, bs []Entry
	for i := range 4 + r.IntN(24) {
		name := fmt.Sprintf("n%02d", i)
		ha, hb := EmptyTreeHash(), EmptyTreeHash()
		if depth > 0 && r.IntN(3) == 0 {
			ha, hb = genPair(t, s, r, depth-1)
		}
		if r.IntN(8) != 0 { // the same entry on both sides, its subtree maybe not
			e := randEntry(r, name, ha)
			as = append(as, e)
			if e.Kind == KindDir && !e.Uncaptured {
				e.Hash = hb
			}
			bs = append(bs, e)
			continue
		}
		if r.IntN(4) != 0 {
			as = append(as, randEntry(r, name, ha))
		}
		if r.IntN(4) != 0 {
			bs = append(bs, randEntry(r, name, hb))
		}
	}
	return s.put(t, as...), s.put(t, bs...)
}

// diffAll runs Diff and returns its changes and error; fn's stop says
// after how many changes the callback fails (0: never).
func diffAll(l Loader, a, b cas.Hash, stop int) ([]Change, error) {
	var out []Change
	err := Diff(context.Background(), l, a, b, func(c Change) error {
		out = append(out, c)
		if len(out) == stop {
			return errors.New("stop")
		}
		return nil
	})
	return out, err
}

// TestDiffEncodedMatchesDecoded: Diff through a StoreLoader, which
// compares encodings, reports what it reports through a Loader that
// decodes every tree: the same changes with the same entries, the same
// errors, on random trees, damaged ones and callbacks that stop early.
func TestDiffEncodedMatchesDecoded(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	s := newStore()
	cache := NewTreeCache(0)
	loaders := map[string]Loader{"store": NewStoreLoader(s), "cached": NewCachedStoreLoader(s, cache)}
	total, errs := 0, 0
	for i := range 160 {
		a, b := genPair(t, s, r, 2)
		if r.IntN(4) == 0 {
			_, b = genPair(t, s, r, 2) // an unrelated tree
		}
		stop := 0
		if i%5 == 0 {
			stop = 1 + r.IntN(5)
		}
		var damaged cas.Hash
		if i%3 == 0 { // a tree the diff reads gets a byte flipped
			s.reset()
			if _, err := diffAll(s, a, b, 0); err != nil {
				t.Fatal(err)
			}
			var hs []cas.Hash
			for h := range s.calls {
				hs = append(hs, h)
			}
			if len(hs) > 0 {
				slices.SortFunc(hs, func(x, y cas.Hash) int { return bytes.Compare(x[:], y[:]) })
				damaged = hs[r.IntN(len(hs))]
				b := append([]byte(nil), s.trees[damaged]...)
				b[r.IntN(len(b))] ^= byte(1 + r.IntN(255))
				s.trees[damaged] = b
				cache.Clear()
			}
		}
		want, wantErr := diffAll(s, a, b, stop)
		loaders["caching"] = NewCachingLoader(NewStoreLoader(s))
		loaders["caching cached"] = NewCachingLoader(NewCachingLoader(NewCachedStoreLoader(s, cache)))
		for name, l := range loaders {
			for range 2 { // the second time from the cache
				got, err := diffAll(l, a, b, stop)
				if fmt.Sprint(err) != fmt.Sprint(wantErr) {
					t.Fatalf("pair %d, %s: err %v, want %v", i, name, err, wantErr)
				}
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("pair %d, %s: changes %v, want %v", i, name, changeStrings(got), changeStrings(want))
				}
			}
		}
		total += len(want)
		if i%2 == 0 {
			for _, root := range []cas.Hash{a, b} {
				checkFind(t, s, loaders, root, want)
			}
		}
		if !damaged.IsZero() {
			delete(s.trees, damaged)
			cache.Clear()
			if wantErr != nil {
				errs++
			}
		}
	}
	if total < 2500 || errs < 15 {
		t.Fatalf("only %d changes and %d errors compared", total, errs)
	}
	t.Logf("%d changes, %d errors", total, errs)
}

// TestDiffEncodedOwnsEntries: the entries Diff hands out from encodings
// keep their strings when the encodings' bytes change afterwards.
func TestDiffEncodedOwnsEntries(t *testing.T) {
	s := newStore()
	lk := file("l", "x")
	lk.LinkTo = "grp/first"
	a := s.put(t, file("same", "s"), file("f", "1"), link("sym", "old"))
	b := s.put(t, file("same", "s"), file("f", "2"), link("sym", "new"), lk)
	got, err := diffAll(NewStoreLoader(s), a, b, 0)
	if err != nil {
		t.Fatal(err)
	}
	show := func() string {
		out := ""
		for _, c := range got {
			out += fmt.Sprintf("%+v %+v\n", c.Old, c.New)
		}
		return out
	}
	want := show()
	if len(got) != 3 {
		t.Fatalf("changes %v, want f, l and sym", changeStrings(got))
	}
	for _, data := range s.trees {
		for i := range data {
			data[i] = 'X'
		}
	}
	if now := show(); now != want {
		t.Fatalf("entries changed with the encodings:\n%s\nwas\n%s", now, want)
	}
}

// checkFind compares Find through each loader with Find through s, for
// the paths of changes and a path below each, then Walk through each
// CachingLoader (its trees decoded from the encodings Find kept) with
// Walk through s.
func checkFind(t *testing.T, s *memStore, loaders map[string]Loader, root cas.Hash, changes []Change) {
	t.Helper()
	ctx := context.Background()
	for i, c := range changes {
		if i == 6 {
			break
		}
		for _, p := range []string{c.Path, c.Path + "/n01", "zz"} {
			want, wantErr := Find(ctx, s, root, p)
			for name, l := range loaders {
				got, err := Find(ctx, l, root, p)
				if fmt.Sprint(err) != fmt.Sprint(wantErr) || !got.Equal(want) {
					t.Fatalf("%s: Find %q: %+v, %v; want %+v, %v", name, p, got, err, want, wantErr)
				}
			}
		}
	}
	var want map[string]Entry
	var wantErr error
	for name, l := range loaders {
		if _, ok := l.(*CachingLoader); !ok {
			continue
		}
		if want == nil {
			want, wantErr = walkAll(s, root)
		}
		got, err := walkAll(l, root)
		if fmt.Sprint(err) != fmt.Sprint(wantErr) || !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: Walk %v, %v; want %v, %v", name, got, err, want, wantErr)
		}
	}
}

func walkAll(l Loader, root cas.Hash) (map[string]Entry, error) {
	m := map[string]Entry{}
	err := Walk(context.Background(), l, root, func(p string, e *Entry) error {
		m[p] = *e
		return nil
	})
	return m, err
}

// TestCachingLoaderKeepsEncodings: Diff and Find through a CachingLoader
// over a StoreLoader decode no tree: the encodings are kept, each read
// from the store once, and decoded when LoadTree asks.
func TestCachingLoaderKeepsEncodings(t *testing.T) {
	m := newStore()
	tree := func(g string) cas.Hash {
		sub := m.put(t, file("g", g), file("h", "h"))
		return m.put(t, file("top", "t"), dir("d", m.put(t, file("f1", "1"), dir("sub", sub), file("f2", "2"))))
	}
	a, b := tree("old"), tree("new")
	s := &blobStore{blobs: m.trees}
	c := NewCachingLoader(NewStoreLoader(s))
	ctx := context.Background()
	changes, err := diffAll(c, a, b, 0)
	if err != nil || len(changes) != 1 || s.gets != 6 {
		t.Fatalf("diff: %v, changes %v, %d gets", err, changeStrings(changes), s.gets)
	}
	gets := s.gets
	for _, p := range []string{"d/sub/g", "d/sub/h", "d/f1", "top", "d/sub/none"} {
		if _, err := Find(ctx, c, a, p); err != nil {
			t.Fatal(err)
		}
	}
	if s.gets != gets {
		t.Errorf("Find read %d trees again from the store", s.gets-gets)
	}
	for h := range m.trees {
		if _, ok := c.Cached(h); ok {
			t.Fatalf("tree %s decoded", h.Short())
		}
	}
	tr, err := c.LoadTree(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	if want, _ := Decode(m.trees[a]); !reflect.DeepEqual(tr, want) || s.gets != gets {
		t.Fatalf("LoadTree: %+v, %d gets; want %+v from the kept encoding", tr, s.gets-gets, want)
	}
}

// checkScan fails unless scanTree accepts exactly what Decode accepts,
// with the same error, and splits it into Decode's entries.
func checkScan(t *testing.T, b []byte) {
	t.Helper()
	tr, err := Decode(b)
	st, serr := scanTree(b)
	if fmt.Sprint(err) != fmt.Sprint(serr) {
		t.Fatalf("scan: %v; Decode: %v", serr, err)
	}
	if err != nil {
		return
	}
	if len(st.ends) != len(tr.Entries) {
		t.Fatalf("scan found %d entries, Decode %d", len(st.ends), len(tr.Entries))
	}
	for i := range tr.Entries {
		e, err := st.entry(i)
		if err != nil || e != tr.Entries[i] {
			t.Fatalf("entry %d: %+v, %v; want %+v", i, e, err, tr.Entries[i])
		}
		if k, ok := st.search(e.Name); !ok || k != i {
			t.Fatalf("search %q: %d, %v; want %d", e.Name, k, ok, i)
		}
	}
}

// TestScanMatchesDecode: scanTree agrees with Decode on random trees
// and on every one of them with a byte changed, dropped or added.
func TestScanMatchesDecode(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	bad := 0
	for range 300 {
		b, err := randomTree(r, r.IntN(8)).Encode()
		if err != nil {
			t.Fatal(err)
		}
		checkScan(t, b)
		for range 10 {
			c := append([]byte(nil), b...)
			switch i := r.IntN(len(c)); r.IntN(3) {
			case 0:
				c[i] ^= byte(1 + r.IntN(255))
			case 1:
				c = append(c[:i], c[i+1:]...)
			default:
				c = append(c[:i], append([]byte{byte(r.IntN(256))}, c[i:]...)...)
			}
			if _, err := Decode(c); err != nil {
				bad++
			}
			checkScan(t, c)
		}
	}
	if bad < 1000 {
		t.Fatalf("only %d damaged trees rejected", bad)
	}
}
