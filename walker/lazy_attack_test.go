//go:build linux && (amd64 || arm64)

package walker

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/manifest"
	"github.com/turnback/turnback/manifest/treetest"
)

// Attacks on lazy directory handles (dirh_lazy_linux.go): directories
// swapped, removed, chmod'ed or mounted over while a capture lstats
// their names by path; concurrent opens; descriptor leaks; partial
// reads. Each checks that nothing outside the work tree reaches a tree
// or the store, and that the next capture equals a full walk.

// lazySetup builds files below a fresh work tree, ages it and takes a
// first capture that fills the stat cache, so the next capture's
// subdirectories are lazy.
func lazySetup(t *testing.T, files map[string]string) (dir string, s *cas.Store, opts Options, r1 *Result) {
	t.Helper()
	dir = t.TempDir()
	treetest.PutAll(t, dir, files)
	requireVouching(t, dir)
	ageTree(t, dir)
	time.Sleep(settle)
	s = newStore(t)
	opts = Options{Cache: NewStatCache(s.Backend())}
	r1 = snap(t, dir, s, opts)
	opts.Previous = r1.Root
	return dir, s, opts, r1
}

// outsideTree makes a directory outside the work tree whose files have
// the given names, each a secret of its own size, mode 0600.
func outsideTree(t *testing.T, names ...string) (dir string, secrets []string) {
	t.Helper()
	dir = t.TempDir()
	for i, n := range names {
		secret := "SECRET " + n + strings.Repeat("!", 700+i)
		if err := os.WriteFile(abs(dir, n), []byte(secret), 0o600); err != nil {
			t.Fatal(err)
		}
		secrets = append(secrets, secret)
	}
	return dir, secrets
}

// noOutsideContent fails the test if a snapshot or the store holds one
// of secrets, the content of files outside the work tree.
func noOutsideContent(t *testing.T, s *cas.Store, snaps map[string]manifest.Entry, secrets []string) {
	t.Helper()
	for _, secret := range secrets {
		h := cas.Sum([]byte(secret))
		for p, e := range snaps {
			if e.Hash == h {
				t.Errorf("%s holds the content of a file outside the work tree", p)
			}
		}
		if ok, err := s.HasContent(t.Context(), h); err != nil || ok {
			t.Errorf("the store holds the content of a file outside the work tree (err %v)", err)
		}
	}
}

// noOutsideStat fails the test if an entry of a snapshot carries the
// size of one of secrets, files outside the work tree (whose sizes no
// file inside has): the stat of a file outside was recorded.
func noOutsideStat(t *testing.T, snaps map[string]manifest.Entry, secrets []string) {
	t.Helper()
	for _, secret := range secrets {
		for p, e := range snaps {
			if e.Kind == manifest.KindFile && e.Size == int64(len(secret)) {
				t.Errorf("%s = %+v: the stat of a file outside the work tree", p, e)
			}
		}
	}
}

// swapDir replaces directory rel of dir: it moves it aside (to rel.old)
// and puts what make makes in its place.
func swapDir(t *testing.T, dir, rel string, make func(p string) error) {
	if err := os.Rename(abs(dir, rel), abs(dir, rel+".old")); err != nil {
		t.Error(err)
		return
	}
	if err := make(abs(dir, rel)); err != nil {
		t.Error(err)
	}
}

// TestLazyAttackSymlinkOutsideStat: a lazy directory replaced, between
// its parent's lstat of it and the lstats of its names by path, by a
// symlink to a directory outside the work tree that has files of the
// same names. No content is read from outside (the directory's open
// refuses the symlink), but neither may the stat of the files outside
// (their size, mode, owner) be recorded as entries of the work tree.
func TestLazyAttackSymlinkOutsideStat(t *testing.T) {
	dir, s, opts, r1 := lazySetup(t, map[string]string{"a/b/e1.txt": "e", "a/b/f1.txt": "f", "top.txt": "top"})
	outside, secrets := outsideTree(t, "e1.txt", "f1.txt")
	hookLstatOnce(t, "e1.txt", func() {
		swapDir(t, dir, "a/b", func(p string) error { return os.Symlink(outside, p) })
	})
	r2 := snap(t, dir, s, opts)
	testHookLstat = nil
	got := flatten(t, s, r2.Root)
	noOutsideContent(t, s, got, secrets)
	noOutsideStat(t, got, secrets)
	// a/b's files, if it is captured, are those it held (the lstats
	// by path came before or after the swap, both files unchanged).
	before := flatten(t, s, r1.Root)
	for _, f := range []string{"a/b/e1.txt", "a/b/f1.txt"} {
		if e, ok := got[f]; ok && e != before[f] {
			t.Errorf("%s = %+v, before the swap %+v", f, e, before[f])
		}
	}
	opts.Previous = r2.Root
	r3 := snap(t, dir, s, opts)
	sameSnapshot(t, "next capture", flatten(t, s, r3.Root), fullWalk(t, dir))
}

// TestLazyAttackReplacedByFile: a lazy directory replaced by a regular
// file (or a symlink to one, or a symlink loop) while its names are
// lstat'ed by path. Every lstat then fails with ENOTDIR or ELOOP. The
// directory must not be captured as an empty (or partial) directory,
// as if its files had been deleted: a restore of that snapshot would
// delete them. It is left out, or uncaptured, as a failed open was.
func TestLazyAttackReplacedByFile(t *testing.T) {
	for _, tc := range []struct {
		name string
		make func(dir string) func(p string) error
	}{
		{"file", func(string) func(string) error {
			return func(p string) error { return os.WriteFile(p, []byte("now a file"), 0o644) }
		}},
		{"symlink to a file", func(dir string) func(string) error {
			return func(p string) error { return os.Symlink(abs(dir, "top.txt"), p) }
		}},
		{"symlink loop", func(string) func(string) error {
			return func(p string) error { return os.Symlink("b", p) }
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, s, opts, _ := lazySetup(t, map[string]string{"a/b/x.txt": "x", "a/b/y.txt": "y", "top.txt": "top"})
			hookLstatOnce(t, "x.txt", func() { swapDir(t, dir, "a/b", tc.make(dir)) })
			r2 := snap(t, dir, s, opts)
			testHookLstat = nil
			got := flatten(t, s, r2.Root)
			if e, ok := got["a/b"]; ok && e.Kind == manifest.KindDir && !e.Uncaptured {
				for _, f := range []string{"a/b/x.txt", "a/b/y.txt"} {
					if _, ok := got[f]; !ok {
						t.Errorf("a/b captured as a directory without %s (snapshot %q)", f, pathsOf(got))
					}
				}
			}
			opts.Previous = r2.Root
			r3 := snap(t, dir, s, opts)
			sameSnapshot(t, "next capture", flatten(t, s, r3.Root), fullWalk(t, dir))
		})
	}
}
