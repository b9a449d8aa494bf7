//go:build unix

package walker

import (
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/manifest/treetest"
)

// incTree is the work tree of the incremental-capture tests.
func incTree(t *testing.T) string {
	dir := t.TempDir()
	build(t, dir, []node{
		fileNode("top.txt", 0o644, "top"),
		fileNode("a/f.txt", 0o644, "a"),
		fileNode("a/b/g.txt", 0o644, "b"),
		fileNode("a/b/big.bin", 0o644, strings.Repeat("x", 300)),
		linkNode("a/b/link", "../f.txt"),
		fileNode("c/h.txt", 0o644, "c"),
		fileNode("c/d/e/i.txt", 0o644, "e"),
		dirNode("empty", 0o755),
		fileNode(".gitignore", 0o644, "*.log\n"),
		fileNode("c/skip.log", 0o644, "ignored"),
	})
	return dir
}

// dirtyOf is a Dirty predicate true for the given directories.
func dirtyOf(dirs ...string) func(string) bool {
	m := map[string]bool{}
	for _, d := range dirs {
		m[d] = true
	}
	return func(rel string) bool { return m[rel] }
}

func sameCounts(t *testing.T, got, want Stats) {
	t.Helper()
	if got.Files != want.Files || got.Dirs != want.Dirs || got.Symlinks != want.Symlinks || got.Bytes != want.Bytes {
		t.Errorf("counts: got files %d dirs %d symlinks %d bytes %d, want %d %d %d %d",
			got.Files, got.Dirs, got.Symlinks, got.Bytes, want.Files, want.Dirs, want.Symlinks, want.Bytes)
	}
	if len(got.Uncaptured) != len(want.Uncaptured) {
		t.Fatalf("uncaptured: got %+v, want %+v", got.Uncaptured, want.Uncaptured)
	}
	for i := range got.Uncaptured {
		if got.Uncaptured[i].Path != want.Uncaptured[i].Path || got.Uncaptured[i].Reason != want.Uncaptured[i].Reason {
			t.Errorf("uncaptured %d: got %+v, want %+v", i, got.Uncaptured[i], want.Uncaptured[i])
		}
	}
}

func TestIncrementalReadsOnlyDirty(t *testing.T) {
	dir := incTree(t)
	s := newStore(t)
	opts := Options{SizeLimit: 100}
	base := snap(t, dir, s, opts)
	if base.Stats.DirsRead != 0 || base.Stats.DirsReused != 0 {
		t.Fatalf("a full capture sets the incremental counts: %+v", base.Stats)
	}
	treetest.MustWrite(t, dir, treetest.Tree{"a/b/g.txt": treetest.File("changed", 0o644)})
	treetest.MustWrite(t, dir, treetest.Tree{"a/b/new.txt": treetest.File("new", 0o644)})
	full := snap(t, dir, s, opts)

	inc := opts
	inc.Base, inc.Dirty = base.Root, dirtyOf("", "a", "a/b")
	res := snap(t, dir, s, inc)
	if res.Root != full.Root {
		t.Fatalf("incremental root %s, full %s", res.Root.Short(), full.Root.Short())
	}
	sameCounts(t, res.Stats, full.Stats)
	// Read: the root, a, a/b. Reused: c, c/d, c/d/e, empty.
	if res.Stats.DirsRead != 3 || res.Stats.DirsReused != 4 || res.Stats.Dirs != 7 {
		t.Errorf("dirs read %d reused %d of %d, want 3, 4 of 7", res.Stats.DirsRead, res.Stats.DirsReused, res.Stats.Dirs)
	}
	// No stat cache: every file of the three directories read is hashed
	// (top.txt, .gitignore, f.txt, g.txt, big.bin, new.txt); c's are not.
	if res.Stats.HashedFiles != 6 {
		t.Errorf("hashed %d files, want 6", res.Stats.HashedFiles)
	}
}

// TestIncrementalTrustsDirty shows that a directory Dirty calls clean is
// not read: a change there goes unseen (the watcher must not miss any).
func TestIncrementalTrustsDirty(t *testing.T) {
	dir := incTree(t)
	s := newStore(t)
	base := snap(t, dir, s, Options{})
	treetest.MustWrite(t, dir, treetest.Tree{"c/d/e/i.txt": treetest.File("changed unseen", 0o644)})
	treetest.MustWrite(t, dir, treetest.Tree{"top.txt": treetest.File("changed", 0o644)})
	res := snap(t, dir, s, Options{Base: base.Root, Dirty: dirtyOf("")})
	got := flatten(t, s, res.Root)
	old := flatten(t, s, base.Root)
	if got["c/d/e/i.txt"].Hash != old["c/d/e/i.txt"].Hash {
		t.Error("a clean directory was read")
	}
	if got["top.txt"].Hash == old["top.txt"].Hash {
		t.Error("a change in a dirty directory was missed")
	}
}

func TestIncrementalNothingDirty(t *testing.T) {
	dir := incTree(t)
	s := newStore(t)
	opts := Options{SizeLimit: 100}
	base := snap(t, dir, s, opts)
	opts.Base, opts.Dirty = base.Root, dirtyOf()
	totals := NewTreeTotals()
	opts.Totals = totals
	for range 2 { // the second time from the totals
		res := snap(t, dir, s, opts)
		if res.Root != base.Root {
			t.Fatal("nothing dirty, yet a new root")
		}
		sameCounts(t, res.Stats, base.Stats)
		if res.Stats.DirsRead != 0 || res.Stats.DirsReused != base.Stats.Dirs {
			t.Errorf("read %d, reused %d, want 0, %d", res.Stats.DirsRead, res.Stats.DirsReused, base.Stats.Dirs)
		}
		if len(res.Stats.Uncaptured) != 1 || !strings.Contains(res.Stats.Uncaptured[0].Reason, "size limit") {
			t.Errorf("uncaptured: %+v", res.Stats.Uncaptured)
		}
	}
}

// TestIncrementalModeOfCleanDir: a clean directory is still lstat'ed in
// its (dirty) parent, so its mode is current.
func TestIncrementalModeOfCleanDir(t *testing.T) {
	dir := incTree(t)
	s := newStore(t)
	base := snap(t, dir, s, Options{})
	chmod(t, dir, "c", 0o700)
	full := snap(t, dir, s, Options{})
	res := snap(t, dir, s, Options{Base: base.Root, Dirty: dirtyOf("")})
	if res.Root != full.Root {
		t.Fatal("the mode change of a clean directory was lost")
	}
	if res.Stats.DirsReused == 0 {
		t.Error("nothing reused")
	}
}

// TestIncrementalBaseMissing: a Base the store does not hold (or a
// directory Base does not have) is read.
func TestIncrementalBaseMissing(t *testing.T) {
	dir := incTree(t)
	s := newStore(t)
	full := snap(t, dir, s, Options{})
	s2 := newStore(t)
	res := snap(t, dir, s2, Options{Base: full.Root, Dirty: dirtyOf()})
	if res.Root != full.Root {
		t.Fatal("wrong root without a readable base")
	}
	if res.Stats.DirsRead != full.Stats.Dirs {
		t.Errorf("read %d dirs, want all %d", res.Stats.DirsRead, full.Stats.Dirs)
	}
	// New directory, not dirty (a caller's mistake): read anyway.
	mkdirAll(t, dir, "c/new/deeper")
	treetest.MustWrite(t, dir, treetest.Tree{"c/new/deeper/n.txt": treetest.File("n", 0o644)})
	full2 := snap(t, dir, s, Options{})
	res = snap(t, dir, s, Options{Base: full.Root, Dirty: dirtyOf("", "c")})
	if res.Root != full2.Root {
		t.Fatal("a directory absent from Base was not read")
	}
}

// TestIncrementalDefaultUnchanged: Dirty without Base, or Base without
// Dirty, is a plain capture.
func TestIncrementalDefaultUnchanged(t *testing.T) {
	dir := incTree(t)
	s := newStore(t)
	base := snap(t, dir, s, Options{})
	treetest.MustWrite(t, dir, treetest.Tree{"c/d/e/i.txt": treetest.File("changed", 0o644)})
	full := snap(t, dir, s, Options{})
	for _, o := range []Options{{Dirty: dirtyOf()}, {Base: base.Root}} {
		res := snap(t, dir, s, o)
		if res.Root != full.Root || res.Stats.DirsRead != 0 || res.Stats.DirsReused != 0 {
			t.Errorf("%+v: root %s (want %s), read %d reused %d", o, res.Root.Short(), full.Root.Short(), res.Stats.DirsRead, res.Stats.DirsReused)
		}
	}
}

// TestIncrementalUncapturedDir: an uncaptured directory of Base (large
// new directory) is never reused as it is, and counts as a full capture
// counts it.
func TestIncrementalUncapturedDir(t *testing.T) {
	dir := incTree(t)
	s := newStore(t)
	opts := Options{LargeDirFiles: 3}
	base := snap(t, dir, s, opts)
	for _, n := range []string{"1", "2", "3", "4"} {
		treetest.MustWrite(t, dir, treetest.Tree{"c/large/f" + n: treetest.File(n, 0o644)})
	}
	opts.Previous = base.Root
	full := snap(t, dir, s, opts)
	if len(full.Stats.Uncaptured) != 1 {
		t.Fatalf("uncaptured: %+v", full.Stats.Uncaptured)
	}
	inc := opts
	inc.Base, inc.Dirty = base.Root, dirtyOf("", "c")
	res := snap(t, dir, s, inc)
	if res.Root != full.Root {
		t.Fatal("differs from a full capture")
	}
	sameCounts(t, res.Stats, full.Stats)

	// Next time, with the large directory inside a reused tree.
	opts.Previous = full.Root
	full2 := snap(t, dir, s, opts)
	inc = opts
	inc.Base, inc.Dirty = full.Root, dirtyOf("")
	res = snap(t, dir, s, inc)
	if res.Root != full2.Root {
		t.Fatal("differs from a full capture")
	}
	if res.Stats.Files != full2.Stats.Files || res.Stats.Dirs != full2.Stats.Dirs || len(res.Stats.Uncaptured) != 1 {
		t.Errorf("stats %+v, full %+v", res.Stats, full2.Stats)
	}
}

// TestIncrementalRereads: entries a capture reads again even when
// nothing changed are never reused. A large new directory (uncaptured)
// that is emptied is uncaptured with no files once, and captured by the
// capture after that: reusing it would freeze the first state.
func TestIncrementalRereads(t *testing.T) {
	dir := incTree(t)
	s := newStore(t)
	opts := Options{LargeDirFiles: 3}
	prev := snap(t, dir, s, opts).Root
	for _, n := range []string{"1", "2", "3", "4"} {
		treetest.MustWrite(t, dir, treetest.Tree{"c/d/large/f" + n: treetest.File(n, 0o644)})
	}
	opts.Previous = prev
	prev = snap(t, dir, s, opts).Root
	removeAll(t, dir, "c/d/large")
	mkdirAll(t, dir, "c/d/large")
	opts.Previous = prev
	emptied := snap(t, dir, s, opts)
	if u := emptied.Stats.Uncaptured; len(u) != 1 || u[0].Files != 0 {
		t.Fatalf("uncaptured: %+v", u)
	}
	opts.Previous = emptied.Root
	full := snap(t, dir, s, opts)
	if len(full.Stats.Uncaptured) != 0 {
		t.Fatalf("uncaptured: %+v", full.Stats.Uncaptured)
	}
	inc := opts
	inc.Base, inc.Dirty = emptied.Root, dirtyOf()
	res := snap(t, dir, s, inc)
	if res.Root != full.Root {
		t.Fatal("an entry to read again was reused")
	}
	// Only the path to it was read: the root, c, c/d, c/d/large.
	if res.Stats.DirsRead != 4 {
		t.Errorf("read %d dirs, want 4", res.Stats.DirsRead)
	}
}

// TestIgnorerAgreesWithCapture: the Ignorer ignores exactly the paths a
// capture leaves out.
func TestIgnorerAgreesWithCapture(t *testing.T) {
	dir := t.TempDir()
	build(t, dir, []node{
		fileNode(".gitignore", 0o644, "*.log\n/out/\n!keep.log\n"),
		fileNode("a.log", 0o644, ""),
		fileNode("keep.log", 0o644, ""),
		fileNode("out/x", 0o644, ""),
		fileNode("src/out/y", 0o644, ""),
		fileNode("src/.ignore", 0o644, "gen/\n*.tmp\n"),
		fileNode("src/gen/z", 0o644, ""),
		fileNode("src/a.tmp", 0o644, ""),
		fileNode("src/deep/gen/w", 0o644, ""),
		fileNode("src/deep/.turnbackignore", 0o644, "!*.tmp\n"),
		fileNode("src/deep/b.tmp", 0o644, ""),
		fileNode("node_modules/m/m.js", 0o644, ""),
		fileNode("lib/node_modules/m.js", 0o644, ""),
		fileNode(".env", 0o644, ""),
		dirNode(".env.d", 0o755),
		fileNode(".git/HEAD", 0o644, ""),
	})
	s := newStore(t)
	res := snap(t, dir, s, Options{})
	captured := flatten(t, s, res.Root)
	r := openRoot(t, dir)
	ig := NewIgnorer(r)
	n := 0
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == dir {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		_, in := captured[rel]
		if got := ig.Ignored(rel, d.IsDir()); got == in {
			t.Errorf("Ignored(%q) = %v, but captured = %v", rel, got, in)
		}
		n++
		return nil
	})
	if n < 20 {
		t.Fatalf("only %d paths checked", n)
	}
	// Rules change: kept until Forget.
	treetest.MustWrite(t, dir, treetest.Tree{"src/.ignore": treetest.File("", 0o644)})
	if !ig.Ignored("src/gen/z", false) {
		t.Fatal("forgot without Forget")
	}
	ig.Forget("src")
	if ig.Ignored("src/gen", true) || ig.Ignored("src/a.tmp", false) {
		t.Fatal("Forget did not reload the rules")
	}
	ig.Forget("")
	if ig.Ignored("", true) || !ig.Ignored("a.log", false) {
		t.Fatal("wrong after Forget of everything")
	}
}

func TestTreeTotalsBounded(t *testing.T) {
	tt := NewTreeTotals()
	for i := range maxTotals + 10 {
		var h cas.Hash
		h[0], h[1], h[2] = byte(i), byte(i>>8), byte(i>>16)
		tt.put(h, &treeTotal{})
	}
	if len(tt.m) > maxTotals {
		t.Fatalf("%d entries", len(tt.m))
	}
}

// TestFullCaptureCountsTrees: a full capture given Options.Totals counts
// every tree as it writes it, uncaptured entries included, so an
// incremental capture from it counts reused directories without loading
// a tree: here from a store that holds none of them.
func TestFullCaptureCountsTrees(t *testing.T) {
	dir := incTree(t)
	s := newStore(t)
	opts := Options{SizeLimit: 100, LargeDirFiles: 3}
	opts.Previous = snap(t, dir, s, opts).Root
	for _, n := range []string{"1", "2", "3", "4"} {
		treetest.MustWrite(t, dir, treetest.Tree{"c/d/large/f" + n: treetest.File(n, 0o644)}) // a large new directory
	}
	totals := NewTreeTotals()
	opts.Totals = totals
	full := snap(t, dir, s, opts)
	if len(full.Stats.Uncaptured) != 2 {
		t.Fatalf("uncaptured: %+v", full.Stats.Uncaptured)
	}
	if !totals.Has(full.Root) {
		t.Fatal("the full capture did not count its root tree")
	}
	// What a full capture says the next time (the large directory is
	// "uncaptured since it appeared" now).
	again := Options{SizeLimit: 100, LargeDirFiles: 3, Previous: full.Root}
	want := snap(t, dir, s, again)
	inc := again
	inc.Base, inc.Dirty, inc.Totals = full.Root, dirtyOf(), totals
	other := newStore(t) // holds no tree of full's: counted from totals alone
	res := snap(t, dir, other, inc)
	if res.Root != full.Root || want.Root != full.Root {
		t.Fatalf("root %s, full %s", res.Root.Short(), full.Root.Short())
	}
	sameCounts(t, res.Stats, want.Stats)
	if res.Stats.DirsRead != 0 || res.Stats.DirsReused != full.Stats.Dirs {
		t.Errorf("read %d, reused %d, want 0, %d", res.Stats.DirsRead, res.Stats.DirsReused, full.Stats.Dirs)
	}
}
