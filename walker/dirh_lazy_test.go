//go:build linux && (amd64 || arm64)

package walker

import (
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/manifest/treetest"
)

// hookLazyOpens records the lazy handles opened until the test ends.
func hookLazyOpens(t *testing.T) func() []string {
	var mu sync.Mutex
	var opened []string
	testHookLazyOpen = func(name string) {
		mu.Lock()
		opened = append(opened, name)
		mu.Unlock()
	}
	t.Cleanup(func() { testHookLazyOpen = nil })
	return func() []string {
		mu.Lock()
		defer mu.Unlock()
		out := opened
		opened = nil
		slices.Sort(out)
		return out
	}
}

// hookLstatOnce runs f once, just before the first lstat of name.
func hookLstatOnce(t *testing.T, name string, f func()) {
	var once sync.Once
	testHookLstat = func(n string) {
		if n == name {
			once.Do(f)
		}
	}
	t.Cleanup(func() { testHookLstat = nil })
}

// TestLazyDirsNotOpened: a capture of a tree that did not change opens
// only the directories it reads a file of (an ignore file, a symlink)
// and those with names enough to pay for it; and gives the same root.
func TestLazyDirsNotOpened(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"a/b/c/one.txt": "1", "a/b/two.txt": "2", "quiet/three.txt": "3",
		"ign/.gitignore": "*.log\n", "ign/x.log": "skipped", "ign/keep.txt": "kept",
		"links/target.txt": "t",
	}
	for i := range 20 {
		files["many/f"+strings.Repeat("x", i)+".txt"] = "m"
	}
	treetest.PutAll(t, dir, files)
	if err := os.Symlink("target.txt", abs(dir, "links/link")); err != nil {
		t.Fatal(err)
	}
	requireVouching(t, dir)
	ageTree(t, dir)
	time.Sleep(settle)
	s := newStore(t)
	cache := NewStatCache(s.Backend())
	r1 := snap(t, dir, s, Options{Cache: cache})
	opened := hookLazyOpens(t)
	r2 := snap(t, dir, s, Options{Cache: cache, Previous: r1.Root})
	if r2.Root != r1.Root {
		t.Fatal("unchanged tree: root changed")
	}
	// many: 20 names one step below the root still cost 20 lookups
	// more, and so it is opened.
	if got, want := opened(), []string{"ign", "links", "many"}; !slices.Equal(got, want) {
		t.Errorf("opened %q, want %q", got, want)
	}
	sameSnapshot(t, "second capture", flatten(t, s, r2.Root), fullWalk(t, dir))
}

// requireVouching skips the test where directory stats vouch for no
// listing (see fsTraits): there nothing is lazy.
func requireVouching(t *testing.T, dir string) {
	t.Helper()
	hookGetdents(t, dir) // skips the test there
	testHookGetdents = nil
}

// TestLazyDirSwappedForSymlink attacks a lazy handle: between the
// parent's lstat of a directory and the lstat of its names by path,
// the directory is replaced by a symlink to a directory outside the
// work tree, whose files have the same names. Nothing outside is read:
// the files whose stat changed are reported, not captured, and the
// outside content is in no tree and not in the store.
func TestLazyDirSwappedForSymlink(t *testing.T) {
	outside := t.TempDir()
	treetest.PutAll(t, outside, map[string]string{"e1.txt": "SECRET e", "f1.txt": "SECRET f"})
	dir, s, opts, _ := lazySetup(t, map[string]string{"a/b/e1.txt": "orig e", "a/b/f1.txt": "orig f", "top.txt": "top"})
	hookLstatOnce(t, "e1.txt", func() {
		if err := os.Rename(abs(dir, "a/b"), abs(dir, "a/b.old")); err != nil {
			t.Error(err)
		}
		if err := os.Symlink(outside, abs(dir, "a/b")); err != nil {
			t.Error(err)
		}
	})
	r2 := snap(t, dir, s, opts)
	testHookLstat = nil
	for _, secret := range []string{"SECRET e", "SECRET f"} {
		h := cas.Sum([]byte(secret))
		for p, e := range flatten(t, s, r2.Root) {
			if e.Hash == h {
				t.Errorf("%s holds %q, a file outside the work tree", p, secret)
			}
		}
		if ok, err := s.HasContent(t.Context(), h); err != nil || ok {
			t.Errorf("the store holds %q (err %v)", secret, err)
		}
	}
	if len(r2.Stats.Problems) == 0 {
		t.Error("no problem reported for the files whose stat changed")
	}
	// The next capture sees the symlink.
	opts.Previous = r2.Root
	r3 := snap(t, dir, s, opts)
	sameSnapshot(t, "next capture", flatten(t, s, r3.Root), fullWalk(t, dir))
}

// TestLazyRelist: a name of a vouched listing not found by path (here
// renamed just before its lstat; so are an encrypted directory's names
// once its key comes or goes, its stat unchanged) makes the directory
// listed again: the new name is captured at once.
func TestLazyRelist(t *testing.T) {
	dir, s, opts, _ := lazySetup(t, map[string]string{"a/b/x.txt": "x", "a/b/z.txt": "z", "top.txt": "top"})
	opened := hookLazyOpens(t)
	hookLstatOnce(t, "x.txt", func() {
		if err := os.Rename(abs(dir, "a/b/x.txt"), abs(dir, "a/b/y.txt")); err != nil {
			t.Error(err)
		}
	})
	r2 := snap(t, dir, s, opts)
	testHookLstat = nil
	got := flatten(t, s, r2.Root)
	if _, ok := got["a/b/y.txt"]; !ok {
		t.Errorf("a/b/y.txt not captured: %q", pathsOf(got))
	}
	if _, ok := got["a/b/x.txt"]; ok {
		t.Error("a/b/x.txt still captured")
	}
	if o := opened(); !slices.Contains(o, "b") {
		t.Errorf("a/b not opened to list it again (opened %q)", o)
	}
	sameSnapshot(t, "after the rename", got, fullWalk(t, dir))
}

// TestLazyDirVanished: a lazy directory removed before a file of it is
// read is left out, as one removed before its open always was; the
// capture does not fail.
func TestLazyDirVanished(t *testing.T) {
	dir, s, opts, _ := lazySetup(t, map[string]string{"a/b/x.txt": "x", "a/b/y.txt": "y", "top.txt": "top"})
	// x.txt changes, so it must be read; b goes before that.
	treetest.PutAll(t, dir, map[string]string{"a/b/x.txt": "X"})
	hookLstatOnce(t, "y.txt", func() {
		if err := os.RemoveAll(abs(dir, "a/b")); err != nil {
			t.Error(err)
		}
	})
	r2 := snap(t, dir, s, opts)
	testHookLstat = nil
	got := flatten(t, s, r2.Root)
	if e, ok := got["a/b/x.txt"]; ok && e.Hash == cas.Sum([]byte("X")) {
		t.Errorf("a/b/x.txt captured from a directory removed")
	}
	opts.Previous = r2.Root
	r3 := snap(t, dir, s, opts)
	sameSnapshot(t, "next capture", flatten(t, s, r3.Root), fullWalk(t, dir))
}

// TestListingTakesTheStatAfter: a capture with Options.Listing (one a
// watcher takes over) trusts what it read of a directory from the call
// on. A name made in the directory after its parent's listing, but
// before that call, must be in the capture: its stat is taken after
// the call, not the parent's.
func TestListingTakesTheStatAfter(t *testing.T) {
	dir, s, opts, _ := lazySetup(t, map[string]string{"a/b/x.txt": "x", "top.txt": "top"})
	var once sync.Once
	opts.Listing = func(rel string) {
		if rel == "a/b" {
			once.Do(func() { treetest.PutAll(t, dir, map[string]string{"a/b/new.txt": "new"}) })
		}
	}
	got := flatten(t, s, snap(t, dir, s, opts).Root)
	if _, ok := got["a/b/new.txt"]; !ok {
		t.Errorf("a/b/new.txt, made before the Listing call, not captured: %q", pathsOf(got))
	}
}
