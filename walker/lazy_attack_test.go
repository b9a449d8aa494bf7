//go:build linux && (amd64 || arm64)

package walker

import (
	"fmt"
	"os"
	"path"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/manifest"
	"github.com/turnback/turnback/manifest/treetest"
	"golang.org/x/sys/unix"
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

// lazyMutation is one change made to directory a/b of lazyRaceTree
// while a capture reads it (outside: a directory outside the work tree
// with files of b's names, and subdirectories sub and b like b's).
type lazyMutation struct {
	name string
	do   func(t *testing.T, dir, outside string)
}

// likeB makes directory rel of dir with files of a/b's names, of other
// content.
func likeB(t *testing.T, dir, rel string) {
	treetest.PutAll(t, dir, map[string]string{rel + "/x.txt": "other x", rel + "/y.txt": "other y", rel + "/sub/z.txt": "other z"})
}

func exchange(t *testing.T, dir, a, b string) {
	if err := unix.Renameat2(unix.AT_FDCWD, abs(dir, a), unix.AT_FDCWD, abs(dir, b), unix.RENAME_EXCHANGE); err != nil {
		t.Error(err)
	}
}

var lazyMutations = []lazyMutation{
	{"renamed away", func(t *testing.T, dir, _ string) {
		if err := os.Rename(abs(dir, "a/b"), abs(dir, "a/gone")); err != nil {
			t.Error(err)
		}
	}},
	{"removed", func(t *testing.T, dir, _ string) { os.RemoveAll(abs(dir, "a/b")) }},
	{"removed and recreated", func(t *testing.T, dir, _ string) {
		os.RemoveAll(abs(dir, "a/b"))
		likeB(t, dir, "a/b")
	}},
	{"replaced by a file", func(t *testing.T, dir, _ string) {
		swapDir(t, dir, "a/b", func(p string) error { return os.WriteFile(p, []byte("file"), 0o644) })
	}},
	{"symlink inside", func(t *testing.T, dir, _ string) {
		likeB(t, dir, "a/c")
		swapDir(t, dir, "a/b", func(p string) error { return os.Symlink("c", p) })
	}},
	{"symlink outside", func(t *testing.T, dir, outside string) {
		swapDir(t, dir, "a/b", func(p string) error { return os.Symlink(outside, p) })
	}},
	{"dangling symlink", func(t *testing.T, dir, _ string) {
		swapDir(t, dir, "a/b", func(p string) error { return os.Symlink("nowhere", p) })
	}},
	{"exchanged with a sibling", func(t *testing.T, dir, _ string) {
		likeB(t, dir, "a/c")
		exchange(t, dir, "a/b", "a/c")
	}},
	{"parent exchanged", func(t *testing.T, dir, _ string) {
		likeB(t, dir, "z/b")
		exchange(t, dir, "a", "z")
	}},
	{"parent symlink outside", func(t *testing.T, dir, outside string) {
		swapDir(t, dir, "a", func(p string) error { return os.Symlink(outside, p) })
	}},
	{"chmod 000", func(t *testing.T, dir, _ string) { chmod(t, dir, "a/b", 0o000) }},
	{"chmod 0111", func(t *testing.T, dir, _ string) { chmod(t, dir, "a/b", 0o111) }},
	{"chmod 0333", func(t *testing.T, dir, _ string) { chmod(t, dir, "a/b", 0o333) }},
	{"parent chmod 000", func(t *testing.T, dir, _ string) { chmod(t, dir, "a", 0o000) }},
}

// lazyRaceTree: a/b is the attacked directory; its names are its own.
var lazyRaceTree = map[string]string{
	"a/b/x.txt": "x", "a/b/y.txt": "y", "a/b/sub/z.txt": "z", "a/b/sub/w.txt": "w",
	"a/other.txt": "o", "top.txt": "top",
}

// lazyOutside is the directory outside the work tree the attacks link
// to, with b's names, and subdirectories named as b's and as b.
func lazyOutside(t *testing.T) (string, []string) {
	outside, secrets := outsideTree(t, "x.txt", "y.txt")
	for _, d := range []string{"sub", "b"} {
		sub, s := outsideTree(t, "x.txt", "y.txt", "z.txt", "w.txt")
		if err := os.Rename(sub, abs(outside, d)); err != nil {
			t.Fatal(err)
		}
		secrets = append(secrets, s...)
	}
	return outside, secrets
}

// lazyMoment is a moment of a capture when a mutation is made.
type lazyMoment struct {
	name string
	open bool // a lazy open: only when a file of b is to be read
	arm  func(t *testing.T, f func())
}

var lazyMoments = []lazyMoment{
	{"lstat x.txt", false, func(t *testing.T, f func()) { hookLstatOnce(t, "x.txt", f) }},
	{"lstat y.txt", false, func(t *testing.T, f func()) { hookLstatOnce(t, "y.txt", f) }},
	{"lstat sub/z.txt", false, func(t *testing.T, f func()) { hookLstatOnce(t, "z.txt", f) }},
	{"open b", true, func(t *testing.T, f func()) { hookLazyOpenOnce(t, "b", f) }},
	{"open sub", true, func(t *testing.T, f func()) { hookLazyOpenOnce(t, "sub", f) }},
}

// TestLazyAttackRaces changes a/b at a moment of a second capture (the
// first lstat of one of its names, of its subdirectory's, a lazy open),
// with or without files of b and sub to read. Whatever the capture
// records, no content from outside the work tree reaches a tree or the
// store, the capture does not fail, and the next capture equals a full
// walk. The trees are made and aged at once, to wait for the stat
// cache's racy window once.
func TestLazyAttackRaces(t *testing.T) { lazyRaces(t) }

// TestLazyAttackRacesUnpriv is TestLazyAttackRaces run as user nobody,
// to whom the chmod'ed directories are unreadable or unsearchable.
func TestLazyAttackRacesUnpriv(t *testing.T) {
	if rerunUnprivileged(t) {
		return
	}
	lazyRaces(t)
}

func lazyRaces(t *testing.T) {
	type tc struct {
		name   string
		mu     lazyMutation
		mo     lazyMoment
		edited bool
		dir    string
	}
	var cases []*tc
	for _, mu := range lazyMutations {
		for _, mo := range lazyMoments {
			for _, edited := range []bool{false, true} {
				if mo.open && !edited {
					continue
				}
				name := mu.name + "/" + mo.name
				if edited {
					name += "/edited"
				}
				cases = append(cases, &tc{name: name, mu: mu, mo: mo, edited: edited, dir: t.TempDir()})
			}
		}
	}
	for _, c := range cases {
		treetest.PutAll(t, c.dir, lazyRaceTree)
		ageTree(t, c.dir)
	}
	requireVouching(t, cases[0].dir)
	time.Sleep(settle)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { lazyRace(t, c.dir, c.mu, c.mo, c.edited) })
	}
}

func lazyRace(t *testing.T, dir string, mu lazyMutation, mo lazyMoment, edited bool) {
	t.Cleanup(func() { chmodBack(dir) })
	s := newStore(t)
	opts := Options{Cache: NewStatCache(s.Backend())}
	opts.Previous = snap(t, dir, s, opts).Root
	outside, secrets := lazyOutside(t)
	if edited {
		// Files to read: b and sub are opened to read them.
		treetest.PutAll(t, dir, map[string]string{"a/b/x.txt": "x2", "a/b/sub/z.txt": "z2"})
	}
	fired := false
	mo.arm(t, func() {
		fired = true
		mu.do(t, dir, outside)
	})
	r2, err := Capture(t.Context(), openRoot(t, dir), s, opts)
	testHookLstat, testHookLazyOpen = nil, nil
	if err != nil {
		t.Fatalf("capture during the change: %v", err)
	}
	if !fired {
		t.Fatal("the change was not made: the moment never came")
	}
	got := flatten(t, s, r2.Root)
	noOutsideContent(t, s, got, secrets)
	chmodBack(dir)
	opts.Previous = r2.Root
	r3 := snap(t, dir, s, opts)
	next := flatten(t, s, r3.Root)
	noOutsideContent(t, s, next, secrets)
	sameSnapshot(t, "next capture", next, fullWalk(t, dir))
}

// chmodBack makes every directory below dir readable and searchable.
func chmodBack(dir string) {
	for _, p := range []string{"a", "a/b", "z"} {
		if fi, err := os.Lstat(abs(dir, p)); err == nil && fi.IsDir() {
			os.Chmod(abs(dir, p), 0o755)
		}
	}
}

// hookLazyOpenOnce runs f once, just before the first lazy open of a
// directory named name.
func hookLazyOpenOnce(t *testing.T, name string, f func()) {
	var once sync.Once
	testHookLazyOpen = func(n string) {
		if n == name {
			once.Do(f)
		}
	}
	t.Cleanup(func() { testHookLazyOpen = nil })
}

// TestLazyAttackParentGone: a lazy directory renamed away or removed
// when it is opened, its names already lstat'ed by path, to read a
// changed file of it or to open its subdirectory. Its open fails, as
// its own open (before its listing) used to. Then the whole directory
// is gone, or uncaptured: its files to read and its subdirectories
// must not be dropped one by one as if each had been deleted (they
// were not), leaving the rest as a directory that never was, with no
// problem reported.
func TestLazyAttackParentGone(t *testing.T) {
	for _, tc := range []struct {
		name   string
		edited map[string]string
		gone   func(dir string) error
	}{
		{"renamed, file read", map[string]string{"a/b/x.txt": "x2"}, renameB},
		{"renamed, subdirectory opened", map[string]string{"a/b/sub/z.txt": "z2"}, renameB},
		{"removed, file read", map[string]string{"a/b/x.txt": "x2"}, removeB},
		{"removed, subdirectory opened", map[string]string{"a/b/sub/z.txt": "z2"}, removeB},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, s, opts, _ := lazySetup(t, map[string]string{"a/b/x.txt": "x", "a/b/y.txt": "y", "a/b/sub/z.txt": "z", "top.txt": "top"})
			treetest.PutAll(t, dir, tc.edited)
			hookLazyOpenOnce(t, "b", func() {
				if err := tc.gone(dir); err != nil {
					t.Error(err)
				}
			})
			r2 := snap(t, dir, s, opts)
			testHookLazyOpen = nil
			got := flatten(t, s, r2.Root)
			if e, ok := got["a/b"]; ok && !e.Uncaptured {
				for _, p := range []string{"a/b/x.txt", "a/b/y.txt", "a/b/sub", "a/b/sub/z.txt"} {
					if _, ok := got[p]; !ok {
						t.Errorf("a/b captured without %s (snapshot %q, problems %+v)", p, pathsOf(got), r2.Stats.Problems)
					}
				}
			}
			opts.Previous = r2.Root
			r3 := snap(t, dir, s, opts)
			sameSnapshot(t, "next capture", flatten(t, s, r3.Root), fullWalk(t, dir))
		})
	}
}

func renameB(dir string) error { return os.Rename(abs(dir, "a/b"), abs(dir, "a/gone")) }
func removeB(dir string) error { return os.RemoveAll(abs(dir, "a/b")) }

// TestLazyAttackConcurrentOpens: small lazy directories whose files all
// changed are read by several workers at once, each asking for the
// directory's descriptor; and chains a/b/c/d/e of lazy directories
// with one or two names each, whose deepest files changed, open from
// the bottom up in a worker. Each directory is opened once, and the
// capture equals a full walk. Run it with -race.
func TestLazyAttackConcurrentOpens(t *testing.T) {
	files := map[string]string{"top.txt": "top"}
	var edits []string
	for i := range 24 {
		d := fmt.Sprintf("small%02d", i)
		for k := range 6 {
			p := fmt.Sprintf("%s/f%d.txt", d, k)
			files[p] = p
			edits = append(edits, p)
		}
	}
	for i := range 6 {
		chain := fmt.Sprintf("ch%d_a/ch%d_b/ch%d_c/ch%d_d/ch%d_e", i, i, i, i, i)
		files[chain+"/deep1.txt"] = "deep"
		files[chain+"/deep2.txt"] = "deep"
		files[path.Dir(chain)+"/side.txt"] = "side"
		edits = append(edits, chain+"/deep1.txt", chain+"/deep2.txt")
	}
	dir, s, opts, _ := lazySetup(t, files)
	for _, p := range edits {
		files[p] = "changed " + p
	}
	treetest.PutAll(t, dir, files)
	var mu sync.Mutex
	opens := map[string]int{}
	testHookLazyOpen = func(name string) {
		mu.Lock()
		opens[name]++
		mu.Unlock()
	}
	defer func() { testHookLazyOpen = nil }()
	for round := range 2 {
		clear(opens)
		r := snap(t, dir, s, opts)
		opts.Previous = r.Root
		got := flatten(t, s, r.Root)
		for p, e := range opens {
			if e > 1 {
				t.Errorf("round %d: %s opened %d times", round, p, e)
			}
		}
		if round == 0 {
			if len(opens) != 24+6*5 {
				t.Errorf("round 0: %d lazy opens, want %d (each small directory, each of the chains)", len(opens), 24+6*5)
			}
			for _, p := range edits {
				if e := got[p]; e.Hash != cas.Sum([]byte(files[p])) {
					t.Errorf("%s = %+v, not its new content", p, e)
				}
			}
		}
		sameSnapshot(t, fmt.Sprintf("round %d", round), got, fullWalk(t, dir))
		// The next round reads the same files again: their ctime is in
		// the racy window, so the records do not trust them.
	}
}
