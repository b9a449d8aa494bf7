package manifest

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/turnback/turnback/cas"
)

// memStore is an in-memory Loader that stores encodings and counts loads.
type memStore struct {
	mu    sync.Mutex
	trees map[cas.Hash][]byte
	calls map[cas.Hash]int
	fail  map[cas.Hash]error
}

func newStore() *memStore {
	return &memStore{trees: map[cas.Hash][]byte{}, calls: map[cas.Hash]int{}, fail: map[cas.Hash]error{}}
}

func (s *memStore) LoadTree(_ context.Context, h cas.Hash) (*Tree, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls[h]++
	if err := s.fail[h]; err != nil {
		return nil, err
	}
	b, ok := s.trees[h]
	if !ok {
		return nil, fmt.Errorf("tree %s not found", h.Short())
	}
	return Decode(b)
}

func (s *memStore) loads() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, c := range s.calls {
		n += c
	}
	return n
}

func (s *memStore) reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	clear(s.calls)
}

// put stores a tree made of entries (sorted here) and returns its hash.
func (s *memStore) put(t testing.TB, entries ...Entry) cas.Hash {
	t.Helper()
	tr := &Tree{Entries: entries}
	tr.Sort()
	h, b, err := tr.Hash()
	if err != nil {
		t.Fatal(err)
	}
	s.mu.Lock()
	s.trees[h] = b
	s.mu.Unlock()
	return h
}

func file(name, content string) Entry {
	return Entry{Name: name, Kind: KindFile, Mode: 0o644, Size: int64(len(content)), Hash: sum(content)}
}

func dir(name string, h cas.Hash) Entry {
	return Entry{Name: name, Kind: KindDir, Mode: 0o755, Hash: h}
}

func link(name, target string) Entry {
	return Entry{Name: name, Kind: KindSymlink, Mode: 0o777, Size: int64(len(target)), Target: target}
}

func uncDir(name string, files int64) Entry {
	return Entry{Name: name, Kind: KindDir, Mode: 0o755, Uncaptured: true, Files: files}
}

func uncFile(name string, size int64) Entry {
	return Entry{Name: name, Kind: KindFile, Mode: 0o644, Size: size, Uncaptured: true}
}

func mode(e Entry, m uint32) Entry { e.Mode = m; return e }

func collect(t *testing.T, s Loader, a, b cas.Hash) []Change {
	t.Helper()
	var out []Change
	if err := Diff(context.Background(), s, a, b, func(c Change) error {
		out = append(out, c)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

func changeStrings(cs []Change) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.String()
	}
	return out
}

// fixture builds an old and a new tree covering every kind of change.
type fixture struct {
	s                        *memStore
	a, b                     cas.Hash
	same, dirmode, cap2unc   cas.Hash
	emptyDir, unchangedInner cas.Hash
}

func newFixture(t *testing.T) *fixture {
	s := newStore()
	f := &fixture{s: s}
	deep := s.put(t, file("deep.txt", "deep"))
	f.same = s.put(t, dir("x", s.put(t, file("y", "y"), dir("z", deep))), file("w", "w"))
	f.dirmode = s.put(t, file("m", "m"))
	f.cap2unc = s.put(t, file("c", "c"), dir("cc", deep))
	f.emptyDir = EmptyTreeHash()
	f.unchangedInner = s.put(t, file("u", "u"))
	gonedir := s.put(t, dir("sub", deep), file("z.txt", "z"))
	newdir := s.put(t, file("b.txt", "b"), dir("a", s.put(t, file("n.txt", "n"))))
	kids := s.put(t, file("k1", "1"), file("k2", "2"))
	subA := s.put(t, dir("inner", s.put(t, file("a.txt", "old"))), dir("same", f.unchangedInner))
	subB := s.put(t, dir("inner", s.put(t, file("a.txt", "new"), file("b.txt", "b"))), dir("same", f.unchangedInner))
	f.a = s.put(t,
		dir("same", f.same),
		file("keep.txt", "keep"),
		file("mod.txt", "v1"),
		file("mode.sh", "#!"),
		file("both.txt", "v1"),
		file("gone.txt", "bye"),
		dir("gonedir", gonedir),
		dir("emptygone", f.emptyDir),
		file("f2d", "f"),
		dir("d2f", kids),
		link("l2f", "target"),
		file("f2l", "f"),
		dir("d2l", kids),
		link("l2d", "t"),
		link("link", "old"),
		link("linkmode", "same"),
		dir("dirmode", f.dirmode),
		mode(dir("sub", subA), 0o700),
		uncDir("unc", 300),
		uncDir("unc2", 500),
		dir("cap2unc", f.cap2unc),
		uncFile("big.bin", 20<<20),
		uncFile("bigsame.bin", 20<<20),
		uncFile("bigsize.bin", 20<<20),
		uncDir("uncmode", 200),
		uncDir("unc2cap", 250),
	)
	f.b = s.put(t,
		dir("same", f.same),
		file("keep.txt", "keep"),
		file("mod.txt", "v2"),
		mode(file("mode.sh", "#!"), 0o755),
		mode(file("both.txt", "v2"), 0o600),
		dir("newdir", newdir),
		dir("f2d", kids),
		file("d2f", "d"),
		file("l2f", "target"),
		link("f2l", "f"),
		link("d2l", "kids"),
		dir("l2d", kids),
		link("link", "new"),
		mode(link("linkmode", "same"), 0o755),
		mode(dir("dirmode", f.dirmode), 0o700),
		dir("sub", subB),
		file("sub.txt", "pre-order: after sub/..."),
		uncDir("unc", 301),
		uncDir("unc2", 500),
		uncDir("cap2unc", 2),
		file("big.bin", "now small"),
		uncFile("bigsame.bin", 20<<20),
		uncFile("bigsize.bin", 21<<20),
		mode(uncDir("uncmode", 200), 0o700),
		dir("unc2cap", kids),
		uncDir("newunc", 999),
	)
	return f
}

func TestDiffAllKinds(t *testing.T) {
	f := newFixture(t)
	got := collect(t, f.s, f.a, f.b)
	want := []string{
		"modified big.bin",
		"modified bigsize.bin",
		"modified both.txt",
		"modified cap2unc",
		"type d2f",
		"deleted d2f/k1",
		"deleted d2f/k2",
		"type d2l",
		"deleted d2l/k1",
		"deleted d2l/k2",
		"mode dirmode",
		"deleted emptygone",
		"type f2d",
		"added f2d/k1",
		"added f2d/k2",
		"type f2l",
		"deleted gone.txt",
		"deleted gonedir",
		"deleted gonedir/sub",
		"deleted gonedir/sub/deep.txt",
		"deleted gonedir/z.txt",
		"type l2d",
		"added l2d/k1",
		"added l2d/k2",
		"type l2f",
		"modified link",
		"mode linkmode",
		"modified mod.txt",
		"mode mode.sh",
		"added newdir",
		"added newdir/a",
		"added newdir/a/n.txt",
		"added newdir/b.txt",
		"added newunc",
		"mode sub",
		"modified sub/inner/a.txt",
		"added sub/inner/b.txt",
		"added sub.txt",
		"modified unc",
		"modified unc2cap",
		"modified uncmode",
	}
	if g := changeStrings(got); !reflect.DeepEqual(g, want) {
		t.Fatalf("changes:\n%s\nwant:\n%s", strings.Join(g, "\n"), strings.Join(want, "\n"))
	}
	for _, c := range got {
		if (c.Old == nil) != (c.Kind == Added) || (c.New == nil) != (c.Kind == Deleted) {
			t.Errorf("%s: Old %v New %v", c, c.Old, c.New)
		}
		name := c.Path[strings.LastIndexByte(c.Path, '/')+1:]
		for _, e := range []*Entry{c.Old, c.New} {
			if e != nil && e.Name != name {
				t.Errorf("%s: entry named %q", c, e.Name)
			}
		}
	}
	// Equal subtrees, and subtrees whose only change is the dir's mode or
	// capture state, are never loaded.
	for name, h := range map[string]cas.Hash{"same": f.same, "dirmode": f.dirmode, "cap2unc": f.cap2unc, "sub/same": f.unchangedInner} {
		if n := f.s.calls[h]; n != 0 {
			t.Errorf("%s loaded %d times", name, n)
		}
	}
	if n := f.s.calls[EmptyTreeHash()]; n != 0 {
		t.Errorf("empty tree loaded %d times", n)
	}
	// The entries carry the new and old state.
	byPath := map[string]Change{}
	for _, c := range got {
		byPath[c.Path] = c
	}
	if c := byPath["mode.sh"]; c.Old.Mode != 0o644 || c.New.Mode != 0o755 {
		t.Errorf("mode.sh: %+v -> %+v", c.Old, c.New)
	}
	if c := byPath["f2l"]; c.Old.Kind != KindFile || c.New.Kind != KindSymlink || c.New.Target != "f" {
		t.Errorf("f2l: %+v -> %+v", c.Old, c.New)
	}
	if c := byPath["unc"]; c.Old.Files != 300 || c.New.Files != 301 {
		t.Errorf("unc: %+v -> %+v", c.Old, c.New)
	}
}

func TestDiffReverse(t *testing.T) {
	f := newFixture(t)
	fwd := collect(t, f.s, f.a, f.b)
	rev := collect(t, f.s, f.b, f.a)
	if len(fwd) != len(rev) {
		t.Fatalf("%d changes forward, %d back", len(fwd), len(rev))
	}
	flip := map[ChangeKind]ChangeKind{Added: Deleted, Deleted: Added, Modified: Modified, ModeChanged: ModeChanged, TypeChanged: TypeChanged}
	for i := range fwd {
		if fwd[i].Path != rev[i].Path || flip[fwd[i].Kind] != rev[i].Kind || !fwd[i].Old.Equal(rev[i].New) || !fwd[i].New.Equal(rev[i].Old) {
			t.Errorf("change %d: forward %s, back %s", i, fwd[i], rev[i])
		}
	}
}

func TestDiffEqualRootsLoadNothing(t *testing.T) {
	f := newFixture(t)
	for _, h := range []cas.Hash{f.a, {}, EmptyTreeHash()} {
		if got := collect(t, f.s, h, h); len(got) != 0 {
			t.Fatalf("diff of %s with itself: %v", h.Short(), got)
		}
	}
	if got := collect(t, f.s, cas.Hash{}, EmptyTreeHash()); len(got) != 0 {
		t.Fatalf("zero vs empty: %v", got)
	}
	if n := f.s.loads(); n != 0 {
		t.Fatalf("%d loads", n)
	}
}

func TestDiffFromAndToEmpty(t *testing.T) {
	s := newStore()
	root := s.put(t, dir("a", s.put(t, file("x", "x"), dir("y", s.put(t, file("z", "z"))))), file("a.txt", "t"), uncDir("u", 7), link("l", "a"))
	want := []string{"a", "a/x", "a/y", "a/y/z", "a.txt", "l", "u"}
	for _, c := range []struct {
		a, b cas.Hash
		kind ChangeKind
	}{{cas.Hash{}, root, Added}, {root, cas.Hash{}, Deleted}, {EmptyTreeHash(), root, Added}} {
		var got []string
		for _, ch := range collect(t, s, c.a, c.b) {
			if ch.Kind != c.kind {
				t.Fatalf("%s, want %s", ch, c.kind)
			}
			got = append(got, ch.Path)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("paths %q, want %q", got, want)
		}
	}
}

// TestDiffLoadsOnlyChangedPath is the reason for the Merkle tree: changing
// one file among 10,000 loads the two roots and the two changed dirs.
func TestDiffLoadsOnlyChangedPath(t *testing.T) {
	s := newStore()
	var dirs []Entry
	for i := range 100 {
		var files []Entry
		for j := range 100 {
			files = append(files, file(fmt.Sprintf("f%03d", j), fmt.Sprintf("%d/%d", i, j)))
		}
		dirs = append(dirs, dir(fmt.Sprintf("d%03d", i), s.put(t, files...)))
	}
	a := s.put(t, dirs...)
	changed := file("f042", "changed")
	d, _ := s.LoadTree(context.Background(), dirs[17].Hash)
	e, _ := d.Lookup("f042")
	*e = changed
	dirs[17].Hash = s.put(t, d.Entries...)
	b := s.put(t, dirs...)
	s.reset()
	got := changeStrings(collect(t, s, a, b))
	if want := []string{"modified d017/f042"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("changes %v, want %v", got, want)
	}
	if n := s.loads(); n != 4 {
		t.Fatalf("%d loads, want 4", n)
	}
}

func TestDiffStopsOnCallbackError(t *testing.T) {
	f := newFixture(t)
	stop := errors.New("stop")
	n := 0
	err := Diff(context.Background(), f.s, f.a, f.b, func(c Change) error {
		n++
		if c.Path == "d2f/k1" {
			return stop
		}
		return nil
	})
	if err != stop || n != 6 {
		t.Fatalf("err %v after %d changes, want stop after 6", err, n)
	}
}

func TestDiffLoaderError(t *testing.T) {
	f := newFixture(t)
	boom := errors.New("boom")
	inner, _ := f.s.LoadTree(context.Background(), f.a)
	e, _ := inner.Lookup("gonedir")
	gone, _ := f.s.LoadTree(context.Background(), e.Hash)
	sub, _ := gone.Lookup("sub")
	f.s.fail[sub.Hash] = boom
	err := Diff(context.Background(), f.s, f.a, f.b, func(Change) error { return nil })
	if !errors.Is(err, boom) || !strings.Contains(err.Error(), `manifest: load tree of "gonedir/sub": `) {
		t.Fatalf("err = %v", err)
	}
	f.s.fail[f.b] = boom
	err = Diff(context.Background(), f.s, f.a, f.b, func(Change) error { return nil })
	if !errors.Is(err, boom) || !strings.Contains(err.Error(), `manifest: load tree of ".": `) {
		t.Fatalf("err = %v", err)
	}
}

func TestDiffContext(t *testing.T) {
	f := newFixture(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := Diff(ctx, f.s, f.a, f.b, func(Change) error { return nil }); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
	ctx, cancel = context.WithCancel(context.Background())
	defer cancel()
	n := 0
	err := Diff(ctx, f.s, f.a, f.b, func(Change) error { n++; cancel(); return nil })
	if !errors.Is(err, context.Canceled) || n != 1 {
		t.Fatalf("err %v after %d changes", err, n)
	}
}

// funcLoader lets a test hand back arbitrary trees.
type funcLoader func(cas.Hash) (*Tree, error)

func (f funcLoader) LoadTree(_ context.Context, h cas.Hash) (*Tree, error) { return f(h) }

func TestBadLoaders(t *testing.T) {
	root := sum("root")
	cases := []struct {
		name string
		l    funcLoader
		want string
	}{
		{"nil tree", func(cas.Hash) (*Tree, error) { return nil, nil }, "loader returned no tree"},
		{"invalid tree", func(cas.Hash) (*Tree, error) {
			return &Tree{Entries: []Entry{file("b", "b"), file("a", "a")}}, nil
		}, "malformed tree"},
		{"cycle", func(cas.Hash) (*Tree, error) {
			return &Tree{Entries: []Entry{dir("loop", root)}}, nil
		}, "deeper than"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			errD := Diff(context.Background(), c.l, cas.Hash{}, root, func(Change) error { return nil })
			errW := Walk(context.Background(), c.l, root, func(string, *Entry) error { return nil })
			for _, err := range []error{errD, errW} {
				if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "manifest: load tree of ") {
					t.Errorf("err = %v, want %q", err, c.want)
				}
			}
		})
	}
}

// genTree stores a random tree over a small space of names and contents, so
// that two independent trees share many entries and subtrees.
func genTree(t *testing.T, s *memStore, r *rand.Rand, depth int) cas.Hash {
	var entries []Entry
	for _, name := range []string{"a", "b", "c", "d"} {
		if r.IntN(4) == 0 {
			continue
		}
		var e Entry
		switch k := r.IntN(10); {
		case k < 4:
			e = file(name, []string{"x", "y"}[r.IntN(2)])
		case k < 5:
			e = uncFile(name, int64(1+r.IntN(2)))
		case k < 6:
			e = link(name, []string{"x", "../y"}[r.IntN(2)])
		case k < 7:
			e = uncDir(name, int64(r.IntN(2)))
		case depth > 0:
			e = dir(name, genTree(t, s, r, depth-1))
		default:
			e = dir(name, EmptyTreeHash())
		}
		if r.IntN(4) == 0 {
			e.Mode = 0o700
		}
		entries = append(entries, e)
	}
	return s.put(t, entries...)
}

func walkMap(t *testing.T, l Loader, root cas.Hash) map[string]Entry {
	m := map[string]Entry{}
	if err := Walk(context.Background(), l, root, func(p string, e *Entry) error {
		m[p] = *e
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return m
}

// TestDiffApplies checks, on random tree pairs, that applying Diff(a, b) to
// the entries of a gives the entries of b, and that the changes come in
// pre-order. Pairs where a captured dir meets an uncaptured one are
// skipped: by design Diff reports those as one Modified, without the
// captured side's contents.
func TestDiffApplies(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	s := newStore()
	checked := 0
	for range 3000 {
		a, b := genTree(t, s, r, 3), genTree(t, s, r, 3)
		ma, mb := walkMap(t, s, a), walkMap(t, s, b)
		mixed := false
		for p, ea := range ma {
			if eb, ok := mb[p]; ok && ea.Kind == KindDir && eb.Kind == KindDir && ea.Uncaptured != eb.Uncaptured {
				mixed = true
			}
		}
		if mixed {
			continue
		}
		checked++
		changes := collect(t, s, a, b)
		var order []string
		for _, c := range changes {
			if old, ok := ma[c.Path]; ok != (c.Kind != Added) || ok && !old.Equal(c.Old) {
				t.Fatalf("%s: old entry %+v, walk says %+v", c, c.Old, old)
			}
			if c.Kind == Deleted {
				delete(ma, c.Path)
			} else {
				ma[c.Path] = *c.New
			}
			order = append(order, c.Path)
		}
		// A dir whose contents changed is not itself reported (its
		// descendants are), so dir hashes are left out of the comparison.
		for _, m := range []map[string]Entry{ma, mb} {
			for p, e := range m {
				if e.Kind == KindDir {
					e.Hash = cas.Hash{}
					m[p] = e
				}
			}
		}
		if !reflect.DeepEqual(ma, mb) {
			t.Fatalf("applying %v did not give the new tree", changeStrings(changes))
		}
		// Pre-order by name at each level is byte order on the paths
		// with '/' sorting before every other byte.
		key := func(p string) string { return strings.ReplaceAll(p, "/", "\x00") }
		if !slices.IsSortedFunc(order, func(x, y string) int { return strings.Compare(key(x), key(y)) }) {
			t.Fatalf("changes not in pre-order: %q", order)
		}
		if len(changes) == 0 && a != b {
			t.Fatalf("distinct trees %s %s with no changes", a.Short(), b.Short())
		}
	}
	if checked < 1000 {
		t.Fatalf("only %d pairs checked", checked)
	}
}
