//go:build unix

package walker

import (
	"fmt"
	"os"
	"slices"
	"testing"

	"github.com/turnback/turnback/manifest/treetest"
)

// forcedDeleted is a repository whose .gitignore ignores *.cfg, build/
// and vendor/, where git tracks a.cfg, build/keep.txt, build/sub/k.o,
// src/x.cfg, src/y.c, vendor/v.txt and vendor/w/z.txt (git add -f),
// and b.cfg and build/other.o are there untracked. Then a.cfg,
// build/keep.txt, src and vendor are deleted; the index keeps them.
func forcedDeleted(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	treetest.PutAll(t, dir, map[string]string{
		".gitignore":     "*.cfg\nbuild/\nvendor/\n",
		"a.cfg":          "tracked",
		"b.cfg":          "untracked",
		"build/keep.txt": "tracked",
		"build/other.o":  "untracked",
		"build/sub/k.o":  "tracked",
		"src/x.cfg":      "tracked",
		"src/y.c":        "tracked, not ignored",
		"vendor/v.txt":   "tracked",
		"vendor/w/z.txt": "tracked",
		"keep/c.cfg":     "tracked, there",
	})
	git(t, dir, "init", "-q")
	git(t, dir, "add", "-f", ".gitignore", "a.cfg", "build/keep.txt", "build/sub/k.o", "src", "vendor", "keep")
	for _, p := range []string{"a.cfg", "build/keep.txt", "src", "vendor"} {
		if err := os.RemoveAll(abs(dir, p)); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestTrackedIgnoredDeleted: Result.TrackedIgnored lists what git
// tracks, a pattern ignores and the tree lacks: a file, one in a
// directory a pattern ignores, one in a directory deleted, and a
// directory a pattern ignores, deleted (for all it held). Nothing
// there, untracked or not ignored is listed. An incremental capture
// that reuses a directory keeps Base's list there, and one that
// reads it notes what changed.
func TestTrackedIgnoredDeleted(t *testing.T) {
	t.Parallel()
	dir := forcedDeleted(t)
	s := newStore(t)
	idx := &GitIndexes{}
	full := snap(t, dir, s, Options{Index: idx})
	want := []string{"a.cfg", "build/keep.txt", "src/x.cfg", "vendor/"}
	if !slices.Equal(full.TrackedIgnored, want) {
		t.Fatalf("TrackedIgnored %q, want %q", full.TrackedIgnored, want)
	}
	if got, ok := idx.TrackedIgnored(full.Root); !ok || !slices.Equal(got, want) {
		t.Fatalf("Index remembers %q (%v)", got, ok)
	}
	// Nothing changed: the root reused, its list too.
	same := snap(t, dir, s, Options{Index: idx, Base: full.Root, Dirty: dirtyOf()})
	if !slices.Equal(same.TrackedIgnored, want) {
		t.Errorf("reused root: TrackedIgnored %q", same.TrackedIgnored)
	}
	// build/keep.txt back: build and the top are read, keep reused.
	treetest.PutAll(t, dir, map[string]string{"build/keep.txt": "back"})
	inc := snap(t, dir, s, Options{Index: idx, Base: full.Root, Dirty: dirtyOf("", "build")})
	if want := []string{"a.cfg", "src/x.cfg", "vendor/"}; !slices.Equal(inc.TrackedIgnored, want) {
		t.Errorf("incremental: TrackedIgnored %q, want %q", inc.TrackedIgnored, want)
	}
	if inc.Stats.DirsReused == 0 {
		t.Error("incremental capture reused nothing")
	}
}

// TestTrackedIgnoredReusedBelow: a directory an incremental capture
// reuses takes Base's list below it.
func TestTrackedIgnoredReusedBelow(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	treetest.PutAll(t, dir, map[string]string{
		".gitignore": "*.cfg\n",
		"p/a.cfg":    "tracked",
		"p/b":        "b",
		"q/c":        "c",
	})
	git(t, dir, "init", "-q")
	git(t, dir, "add", "-f", ".")
	if err := os.Remove(abs(dir, "p/a.cfg")); err != nil {
		t.Fatal(err)
	}
	s := newStore(t)
	idx := &GitIndexes{}
	full := snap(t, dir, s, Options{Index: idx})
	treetest.PutAll(t, dir, map[string]string{"q/d": "d"})
	inc := snap(t, dir, s, Options{Index: idx, Base: full.Root, Dirty: dirtyOf("", "q")})
	if inc.Stats.DirsReused == 0 || !slices.Equal(inc.TrackedIgnored, []string{"p/a.cfg"}) {
		t.Errorf("reused p: TrackedIgnored %q (reused %d)", inc.TrackedIgnored, inc.Stats.DirsReused)
	}
	// Without an Index remembering Base, nothing is known of p.
	inc = snap(t, dir, s, Options{Base: full.Root, Dirty: dirtyOf("", "q")})
	if len(inc.TrackedIgnored) != 0 {
		t.Errorf("no Index: TrackedIgnored %q", inc.TrackedIgnored)
	}
}

// TestTrackedIgnoredNone: a repository with nothing tracked that a
// pattern ignores, and a folder outside git, list nothing.
func TestTrackedIgnoredNone(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	treetest.PutAll(t, dir, map[string]string{".gitignore": "*.o\n", "a.c": "a", "a.o": "o", "d/b.c": "b"})
	s := newStore(t)
	if res := snap(t, dir, s, Options{}); res.TrackedIgnored != nil {
		t.Errorf("outside git: %q", res.TrackedIgnored)
	}
	git(t, dir, "init", "-q")
	git(t, dir, "add", ".")
	if err := os.Remove(abs(dir, "d/b.c")); err != nil {
		t.Fatal(err)
	}
	if res := snap(t, dir, s, Options{}); res.TrackedIgnored != nil {
		t.Errorf("deleted, not ignored: %q", res.TrackedIgnored)
	}
}

// TestTrackedIgnoredBounded: past MaxTrackedIgnored paths, the list
// keeps the first ones by path.
func TestTrackedIgnoredBounded(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	files := map[string]string{".gitignore": "*.cfg\n"}
	var all []string
	for i := range MaxTrackedIgnored + 50 {
		p := fmt.Sprintf("d%d/f%04d.cfg", i%2, i)
		files[p] = "x"
		all = append(all, p)
	}
	treetest.PutAll(t, dir, files)
	git(t, dir, "init", "-q")
	git(t, dir, "add", "-f", ".")
	for _, p := range all {
		if err := os.Remove(abs(dir, p)); err != nil {
			t.Fatal(err)
		}
	}
	slices.Sort(all)
	res := snap(t, dir, newStore(t), Options{})
	if !slices.Equal(res.TrackedIgnored, all[:MaxTrackedIgnored]) {
		t.Errorf("TrackedIgnored: %d paths, %q...", len(res.TrackedIgnored), res.TrackedIgnored[:min(3, len(res.TrackedIgnored))])
	}
}

// TestTrackedIgnoredNamed: a directory of a built-in name (BuiltinDirs)
// that git tracks paths in and the tree lacks is listed by its path
// and a "/": at the top, below a directory deleted (web), inside one
// there (lib/node_modules/p). One inside a directory listed is not
// listed again. A tracked file deleted from one there, or one of that
// name untracked, lists nothing; nor does the tree before the
// deletions. An incremental capture that reuses a directory keeps
// Base's list there.
func TestTrackedIgnoredNamed(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	treetest.PutAll(t, dir, map[string]string{
		"a.c":                                  "a",
		"node_modules/x.js":                    "x",
		"node_modules/n/node_modules/y.js":     "y",
		"keep/node_modules/k.js":               "k",
		"keep/node_modules/gone.js":            "tracked, deleted",
		"lib/node_modules/p/i.js":              "i",
		"lib/node_modules/p/node_modules/z.js": "z",
		"web/a.js":                             "a",
		"web/node_modules/w.js":                "w",
		"src/m.py":                             "m",
		"src/__pycache__/m.pyc":                "c",
	})
	git(t, dir, "init", "-q")
	git(t, dir, "add", ".")
	treetest.PutAll(t, dir, map[string]string{"other/node_modules/u.js": "untracked"})
	s := newStore(t)
	idx := &GitIndexes{}
	if res := snap(t, dir, s, Options{Index: idx}); res.TrackedIgnored != nil {
		t.Errorf("nothing deleted: TrackedIgnored %q", res.TrackedIgnored)
	}
	for _, p := range []string{"node_modules", "keep/node_modules/gone.js", "lib/node_modules/p/node_modules", "web", "src/__pycache__"} {
		if err := os.RemoveAll(abs(dir, p)); err != nil {
			t.Fatal(err)
		}
	}
	full := snap(t, dir, s, Options{Index: idx})
	want := []string{"lib/node_modules/p/node_modules/", "node_modules/", "src/__pycache__/", "web/node_modules/"}
	if !slices.Equal(full.TrackedIgnored, want) {
		t.Fatalf("TrackedIgnored %q, want %q", full.TrackedIgnored, want)
	}
	treetest.PutAll(t, dir, map[string]string{"a.c": "a, edited"})
	inc := snap(t, dir, s, Options{Index: idx, Base: full.Root, Dirty: dirtyOf("")})
	if inc.Stats.DirsReused == 0 || !slices.Equal(inc.TrackedIgnored, want) {
		t.Errorf("incremental: TrackedIgnored %q, want %q (reused %d)", inc.TrackedIgnored, want, inc.Stats.DirsReused)
	}
}
