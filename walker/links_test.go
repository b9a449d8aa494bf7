//go:build linux

package walker

import (
	"context"
	"os"
	"syscall"
	"testing"

	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/manifest"
	"github.com/turnback/turnback/manifest/treetest"
)

// TestCaptureOwners: every entry records its numeric owner.
func TestCaptureOwners(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to chown")
	}
	dir := t.TempDir()
	treetest.MustWrite(t, dir, treetest.Tree{"mine.txt": treetest.File("m", 0o600)})
	mkdirAll(t, dir, "d")
	treetest.MustWrite(t, dir, treetest.Tree{"d/theirs": treetest.File("t", manifest.FileMode(0o4755))})
	must(t, os.Symlink("mine.txt", abs(dir, "ln")))
	must(t, syscall.Mkfifo(abs(dir, "d/pipe"), 0o620))
	for p, id := range map[string]int{"d/theirs": 1234, "d": 77, "d/pipe": 5} {
		must(t, os.Lchown(abs(dir, p), id, id+1))
	}
	must(t, os.Lchown(abs(dir, "ln"), 9, 10))
	must(t, os.Chmod(abs(dir, "d/theirs"), os.ModeSetuid|0o755)) // chown cleared it
	s := newStore(t)
	res := snap(t, dir, s, Options{})
	got := flattenOwned(t, s, res.Root)
	want := map[string][2]uint32{"mine.txt": {0, 0}, "d": {77, 78}, "d/theirs": {1234, 1235}, "d/pipe": {5, 6}, "ln": {9, 10}}
	for p, w := range want {
		e := got[p]
		if !e.Owned || e.UID != w[0] || e.GID != w[1] {
			t.Errorf("%s: owned %v %d:%d, want %d:%d", p, e.Owned, e.UID, e.GID, w[0], w[1])
		}
	}
	if got["d/theirs"].Mode != 0o4755 {
		t.Errorf("setuid bit lost: %o", got["d/theirs"].Mode)
	}
	// A chown alone changes the snapshot.
	must(t, os.Lchown(abs(dir, "d/theirs"), 1000, 1000))
	if again := snap(t, dir, s, Options{}); again.Root == res.Root {
		t.Error("chown did not change the snapshot")
	}
}

// TestCaptureHardLinks: files linked to one another inside the work
// tree name their group's first member in tree order; a file whose other
// link is outside the work tree, or in an ignored directory, is not in a
// group; and the snapshot id does not depend on inode numbers (the same
// tree built again, other inodes, gives the same id).
func TestCaptureHardLinks(t *testing.T) {
	build := func() string {
		dir := t.TempDir()
		treetest.MustWrite(t, dir, treetest.Tree{"z.txt": treetest.File("shared", 0o644)})
		mkdirAll(t, dir, "a/b")
		mkdirAll(t, dir, "node_modules")
		must(t, os.Link(abs(dir, "z.txt"), abs(dir, "a/b/c")))
		must(t, os.Link(abs(dir, "z.txt"), abs(dir, "a.txt")))
		treetest.MustWrite(t, dir, treetest.Tree{"solo": treetest.File("solo", 0o644)})
		must(t, os.Link(abs(dir, "solo"), abs(t.TempDir(), "outside")))
		treetest.MustWrite(t, dir, treetest.Tree{"ign": treetest.File("ign", 0o644)})
		must(t, os.Link(abs(dir, "ign"), abs(dir, "node_modules/ign")))
		return dir
	}
	s := newStore(t)
	dir := build()
	res := snap(t, dir, s, Options{})
	got := flatten(t, s, res.Root)
	// Tree order: "a" (a directory) and everything in it come before
	// "a.txt", so a/b/c is the first member.
	for p, want := range map[string]string{"a/b/c": "a/b/c", "a.txt": "a/b/c", "z.txt": "a/b/c", "solo": "", "ign": ""} {
		if got[p].LinkTo != want {
			t.Errorf("%s: LinkTo %q, want %q", p, got[p].LinkTo, want)
		}
	}
	if again := snap(t, build(), s, Options{}); again.Root != res.Root {
		t.Errorf("same tree, other inodes: %s, want %s", again.Root.Short(), res.Root.Short())
	}
	// Breaking a link changes the group, not the content.
	must(t, os.Remove(abs(dir, "a/b/c")))
	treetest.MustWrite(t, dir, treetest.Tree{"a/b/c": treetest.File("shared", 0o644)})
	got = flatten(t, s, snap(t, dir, s, Options{}).Root)
	for p, want := range map[string]string{"a/b/c": "", "a.txt": "a.txt", "z.txt": "a.txt"} {
		if got[p].LinkTo != want {
			t.Errorf("after unlink: %s: LinkTo %q, want %q", p, got[p].LinkTo, want)
		}
	}
}

// TestIncrementalHardLinks: a link made in a dirty directory to a file
// in a directory the watcher reports clean (its link count changed, no
// event there) gives the same snapshot as a full walk; so does removing
// the first member of a group in another directory.
func TestIncrementalHardLinks(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	treetest.PutAll(t, dir, map[string]string{
		"x/a":     "A",
		"y/other": "o",
		"w/keep":  "k",
	})
	s := newStore(t)
	cache := NewStatCache(s.Backend())
	base := snap(t, dir, s, Options{Cache: cache}).Root
	inc := func(base cas.Hash, dirty ...string) cas.Hash {
		res, err := Capture(ctx, openRoot(t, dir), s, Options{Base: base, Previous: base, Dirty: dirtyOf(dirty...), Cache: cache})
		must(t, err)
		return res.Root
	}
	full := func() cas.Hash { return snap(t, dir, s, Options{}).Root }
	must(t, os.Link(abs(dir, "x/a"), abs(dir, "y/b")))
	got := inc(base, "", "y")
	if want := full(); got != want {
		t.Fatalf("new link: incremental %s, full %s", got.Short(), want.Short())
	}
	if e := flatten(t, s, got)["x/a"]; e.LinkTo != "x/a" {
		t.Fatalf("x/a LinkTo %q", e.LinkTo)
	}
	must(t, os.Remove(abs(dir, "x/a")))
	got2 := inc(got, "", "x")
	if want := full(); got2 != want {
		t.Fatalf("first member removed: incremental %s, full %s", got2.Short(), want.Short())
	}
	if e := flatten(t, s, got2)["y/b"]; e.LinkTo != "" {
		t.Fatalf("y/b LinkTo %q after its only partner went", e.LinkTo)
	}
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
