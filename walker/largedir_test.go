//go:build unix

package walker

import (
	"fmt"
	"strings"
	"testing"

	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/manifest"
	"github.com/turnback/turnback/manifest/treetest"
)

// addFiles writes n small files below dir/rel, spread over rel and one
// subdirectory so that counting must recurse.
func addFiles(t *testing.T, dir, rel string, n int) {
	t.Helper()
	for i := range n {
		p := fmt.Sprintf("%s/f%03d", rel, i)
		if i%2 == 1 {
			p = fmt.Sprintf("%s/inner/f%03d", rel, i)
		}
		treetest.MustWrite(t, dir, treetest.Tree{p: treetest.File(fmt.Sprintf("%s #%d", rel, i), 0o644)})
	}
}

func uncapturedDir(files int64, mode uint32, name string) manifest.Entry {
	return manifest.Entry{Name: name, Kind: manifest.KindDir, Mode: mode, Uncaptured: true, Files: files}
}

func findUncaptured(res *Result, p string) (Uncaptured, bool) {
	for _, u := range res.Stats.Uncaptured {
		if u.Path == p {
			return u, true
		}
	}
	return Uncaptured{}, false
}

// TestLargeNewDirDefault: the default limit (200), and nothing is new at
// the first snapshot.
func TestLargeNewDirDefault(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	treetest.MustWrite(t, dir, treetest.Tree{"a.txt": treetest.File("a", 0o644)})
	s := newStore(t)
	empty := snap(t, dir, s, Options{})
	addFiles(t, dir, "big", 300)

	first := snap(t, dir, s, Options{}) // no Previous: nothing is new
	if len(first.Stats.Uncaptured) != 0 || first.Stats.Files != 301 {
		t.Errorf("first snapshot: uncaptured %+v, files %d", first.Stats.Uncaptured, first.Stats.Files)
	}
	if e := flatten(t, s, first.Root)["big/inner/f299"]; e.Hash != cas.Sum([]byte("big #299")) {
		t.Errorf("first snapshot lacks big/inner/f299: %+v", e)
	}

	res := snap(t, dir, s, Options{Previous: empty.Root})
	if e := flatten(t, s, res.Root)["big"]; e != uncapturedDir(300, 0o755, "big") {
		t.Errorf("big: %+v, want uncaptured with 300 files", e)
	}
	if res.Stats.Files != 1 || res.Stats.HashedFiles != 1 {
		t.Errorf("files %d, hashed %d: the uncaptured dir's files must be neither counted nor read", res.Stats.Files, res.Stats.HashedFiles)
	}
	if u, ok := findUncaptured(res, "big"); !ok || u.Kind != "dir" || u.Files != 300 || !strings.Contains(u.Reason, "new directory") {
		t.Errorf("Stats.Uncaptured %+v", res.Stats.Uncaptured)
	}
}

// TestLargeNewDir runs with and without a stat cache: with one, a
// directory's previous tree is read from its record when the record was
// written for it (prevDir.know), and the rule must decide the same.
func TestLargeNewDir(t *testing.T) {
	t.Parallel()
	for _, cached := range []bool{false, true} {
		t.Run(fmt.Sprintf("cache=%v", cached), func(t *testing.T) {
			t.Parallel()
			testLargeNewDir(t, cached)
		})
	}
}

func testLargeNewDir(t *testing.T, cached bool) {
	const limit = 20
	dir := t.TempDir()
	treetest.MustWrite(t, dir, treetest.Tree{"keep/a.txt": treetest.File("a", 0o644)})
	treetest.MustWrite(t, dir, treetest.Tree{"wasfile": treetest.File("a file at first", 0o644)})
	addFiles(t, dir, "grows", limit-5)
	s := newStore(t)
	var cache *StatCache
	if cached {
		cache = NewStatCache(s.Backend())
	}
	opts := func(prev cas.Hash) Options { return Options{LargeDirFiles: limit, Previous: prev, Cache: cache} }
	c1 := snap(t, dir, s, opts(cas.Hash{}))

	// New since c1: some large, some small, one nested in an old dir, one
	// where a file was.
	addFiles(t, dir, "new", limit+2)
	// Ignored files are not counted: built-ins and the dir's own rules.
	treetest.MustWrite(t, dir, treetest.Tree{"new/.gitignore": treetest.File("*.o\n", 0o644)}) // counts: 1 file
	for i := range 30 {
		treetest.MustWrite(t, dir, treetest.Tree{fmt.Sprintf("new/x%02d.o", i): treetest.File("obj", 0o644)})
		treetest.MustWrite(t, dir, treetest.Tree{fmt.Sprintf("new/node_modules/m%02d", i): treetest.File("dep", 0o644)})
	}
	addFiles(t, dir, "exact", limit)
	addFiles(t, dir, "small", limit-1)
	treetest.MustWrite(t, dir, treetest.Tree{"small2/.gitignore": treetest.File("*.o\n", 0o644)})
	addFiles(t, dir, "small2", limit-2) // limit-1 with its .gitignore
	for i := range 30 {
		treetest.MustWrite(t, dir, treetest.Tree{fmt.Sprintf("small2/y%02d.o", i): treetest.File("obj", 0o644)})
	}
	addFiles(t, dir, "keep/nested", limit+5)
	removeAll(t, dir, "wasfile")
	addFiles(t, dir, "wasfile", limit)
	addFiles(t, dir, "grows", limit+10) // existed in c1: stays captured
	mkdirAll(t, dir, "emptynew")
	chmod(t, dir, "new", 0o750)

	c2 := snap(t, dir, s, opts(c1.Root))
	got := flatten(t, s, c2.Root)
	for p, n := range map[string]int64{"new": limit + 3, "exact": limit, "keep/nested": limit + 5, "wasfile": limit} {
		mode := uint32(0o755)
		if p == "new" {
			mode = 0o750
		}
		name := p[strings.LastIndexByte(p, '/')+1:]
		if e := got[p]; e != uncapturedDir(n, mode, name) {
			t.Errorf("%s: %+v, want uncaptured with %d files", p, e, n)
		}
		if u, ok := findUncaptured(c2, p); !ok || u.Files != n || u.Kind != "dir" {
			t.Errorf("%s: Stats.Uncaptured %+v", p, u)
		}
		if _, ok := got[p+"/f000"]; ok {
			t.Errorf("%s: content recorded", p)
		}
	}
	for _, p := range []string{"small", "small2", "grows", "emptynew", "keep"} {
		if e := got[p]; !e.IsCapturedDir() {
			t.Errorf("%s: %+v, want captured", p, e)
		}
	}
	if _, ok := got["grows/inner/f029"]; !ok {
		t.Error("grows/inner/f029 not captured")
	}
	if len(c2.Stats.Uncaptured) != 4 || len(c2.Stats.Problems) != 0 {
		t.Errorf("uncaptured %+v, problems %+v", c2.Stats.Uncaptured, c2.Stats.Problems)
	}
	if again := snap(t, dir, s, opts(c2.Root)); again.Root != c2.Root {
		t.Error("a capture of the unchanged tree changed the root")
	}

	// Shrunk below the limit: uncaptured while it exists.
	for i := 5; i < limit+2; i++ {
		p := fmt.Sprintf("new/f%03d", i)
		if i%2 == 1 {
			p = fmt.Sprintf("new/inner/f%03d", i)
		}
		removeAll(t, dir, p)
	}
	c3 := snap(t, dir, s, opts(c2.Root))
	if e := flatten(t, s, c3.Root)["new"]; e != uncapturedDir(6, 0o750, "new") {
		t.Errorf("shrunk new: %+v, want still uncaptured, 6 files", e)
	}
	if u, ok := findUncaptured(c3, "new"); !ok || u.Files != 6 || !strings.Contains(u.Reason, "since it appeared") {
		t.Errorf("shrunk new: Stats.Uncaptured %+v", c3.Stats.Uncaptured)
	}
	// Emptied of everything it counted: still uncaptured.
	removeAll(t, dir, "new")
	mkdirAll(t, dir, "new")
	c3b := snap(t, dir, s, opts(c3.Root))
	if e := flatten(t, s, c3b.Root)["new"]; !e.Uncaptured || e.Files != 0 {
		t.Errorf("emptied new: %+v, want uncaptured, 0 files", e)
	}

	// Gone, then back small: new again, and small, so captured.
	removeAll(t, dir, "new")
	c4 := snap(t, dir, s, opts(c3b.Root))
	if _, ok := flatten(t, s, c4.Root)["new"]; ok {
		t.Fatal("removed dir still in the snapshot")
	}
	addFiles(t, dir, "new", 5)
	c5 := snap(t, dir, s, opts(c4.Root))
	if e := flatten(t, s, c5.Root)["new"]; !e.IsCapturedDir() {
		t.Errorf("recreated small new: %+v, want captured", e)
	}
	// Without Previous the uncaptured dirs are captured again; with the
	// rule disabled too.
	for _, o := range []Options{{LargeDirFiles: limit, Cache: cache}, {LargeDirFiles: -1, Previous: c1.Root, Cache: cache}} {
		res := snap(t, dir, s, o)
		if len(res.Stats.Uncaptured) != 0 {
			t.Errorf("%+v: uncaptured %+v", o, res.Stats.Uncaptured)
		}
	}
}

// TestLargeNewDirPreviousMissing: a Previous that is not in the store
// turns the rule off (with a problem reported) instead of failing.
func TestLargeNewDirPreviousMissing(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	addFiles(t, dir, "big", 30)
	s := newStore(t)
	res := snap(t, dir, s, Options{LargeDirFiles: 10, Previous: cas.Sum([]byte("not a stored tree"))})
	if e := flatten(t, s, res.Root)["big"]; !e.IsCapturedDir() {
		t.Errorf("big: %+v, want captured", e)
	}
	if len(res.Stats.Problems) == 0 {
		t.Error("no problem reported for the unreadable previous snapshot")
	}
}
