package turnback_test

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/turnback/turnback"
	"github.com/turnback/turnback/internal/testtier"
)

// TestGCKeepsRuleBlobs: the rules of an ignored .ignore live in a blob
// that only the state's record names, no tree. gc must keep it while
// the state lives, and verify must find it whole: then the undo, in a
// new process, knows the rules and deletes the file the turn made
// (unknown rules would keep it) while it keeps secret.
func TestGCKeepsRuleBlobs(t *testing.T) {
	t.Parallel()
	rt := newRegressTree(t)
	rt.write(".gitignore", ".ignore\n")
	rt.write(".ignore", "secret\n# only here: TestGCKeepsRuleBlobs\n")
	rt.write("secret", "the user's, ignored")
	rt.write("a", "a")
	rt.snap()
	rt.write("made", "by the agent")
	rt.write(".ignore", "")
	rt.end()
	rt.reopen()
	res, err := rt.repo.GC(rt.ctx, turnback.GCOptions{})
	rt.do("gc", err)
	rt.reopen()
	if v, err := rt.repo.Verify(rt.ctx); err != nil {
		t.Fatalf("verify after gc (removed %d blobs): %v %+v", res.BlobsRemoved, err, v.Problems)
	}
	u, err := rt.repo.Undo(rt.ctx, 1, turnback.UndoOptions{})
	rt.do("undo", err)
	if _, err := os.Lstat(rt.path("made")); !os.IsNotExist(err) {
		t.Errorf("made, which the turn created, is still there after the undo (%v; deleted %q)", err, u.Deleted)
	}
	if got := rt.read("secret"); got != "the user's, ignored" {
		t.Errorf("secret holds %q after the undo", got)
	}
}

// TestLargestRuleSet: ignored ignore files as large as a capture reads
// (4 MiB each, and more: the rest is not applied) and many of 60 KiB
// never make snap, end, undo, redo, restore or status fail, and each
// command leaves alone the file each of them ignores.
func TestLargestRuleSet(t *testing.T) {
	t.Parallel()
	rt := newRegressTree(t)
	rt.write(".gitignore", ".ignore\n")
	var dirs []string
	for i := range 3 {
		d := "big" + string(rune('0'+i))
		dirs = append(dirs, d)
		rt.write(d+"/.ignore", bigRules("secret\n", 4<<20+i)) // past the 4 MiB read
	}
	for i := range 20 {
		d := "d" + string(rune('a'+i))
		dirs = append(dirs, d)
		rt.write(d+"/.ignore", bigRules("secret\n", 60<<10))
	}
	for _, d := range dirs {
		rt.write(d+"/secret", "the user's "+d)
	}
	rt.write("a", "a")
	first := rt.snap()
	rt.write("a", "the agent's")
	rt.write("big0/.ignore", "")
	rt.write("da/.ignore", "")
	rt.end()
	check := func(what string, deleted []string) {
		t.Helper()
		for _, d := range dirs {
			if got := rt.read(d + "/secret"); got != "the user's "+d {
				t.Fatalf("after %s %s/secret holds %q (deleted %q)", what, d, got, deleted)
			}
		}
		if slices.ContainsFunc(deleted, func(p string) bool { return strings.HasSuffix(p, "secret") }) {
			t.Fatalf("%s deleted %q", what, deleted)
		}
		if _, err := rt.repo.Status(rt.ctx); err != nil {
			t.Fatalf("status after %s: %v", what, err)
		}
	}
	u, err := rt.repo.Undo(rt.ctx, 1, turnback.UndoOptions{})
	rt.do("undo", err)
	if got := rt.read("a"); got != "a" {
		t.Fatalf("a holds %q after the undo", got)
	}
	check("undo", u.Deleted)
	rt.reopen()
	r, err := rt.repo.Redo(rt.ctx, 1, turnback.RedoOptions{})
	rt.do("redo", err)
	if got := rt.read("a"); got != "the agent's" {
		t.Fatalf("a holds %q after the redo", got)
	}
	check("redo", r.Deleted)
	rs, err := rt.repo.Restore(rt.ctx, first, turnback.RestoreOptions{})
	rt.do("restore", err)
	if got := rt.read("a"); got != "a" {
		t.Fatalf("a holds %q after the restore", got)
	}
	check("restore", rs.Deleted)
	rt.snap()
	rt.end()
}

// TestManyIgnoredRuleFiles: 3,000 directories, each with an ignored
// .ignore. The records of one command (the state's, the capture memo,
// the skip stamps; for an undo the checkpoint's and the result's too)
// each list them, and together passed what Badger takes in one
// transaction: snap failed "Txn is too big". snap, end, undo and redo
// must work and keep every secret.
func TestManyIgnoredRuleFiles(t *testing.T) {
	testtier.Slow(t) // 6,000 files, about 9 s
	t.Parallel()
	rt := newRegressTree(t)
	rt.write(".gitignore", ".ignore\n")
	const n = 3000
	for i := range n {
		d := fmt.Sprintf("d%04d", i)
		rt.write(d+"/.ignore", "secret\n")
		rt.write(d+"/secret", "the user's")
	}
	rt.write("a", "a")
	rt.snap()
	rt.write("a", "the agent's")
	rt.write("d0000/.ignore", "")
	rt.end()
	u, err := rt.repo.Undo(rt.ctx, 1, turnback.UndoOptions{})
	rt.do("undo", err)
	rt.reopen()
	r, err := rt.repo.Redo(rt.ctx, 1, turnback.RedoOptions{})
	rt.do("redo", err)
	if got := rt.read("a"); got != "the agent's" {
		t.Fatalf("a holds %q after the redo", got)
	}
	for i := range n {
		if p := fmt.Sprintf("d%04d/secret", i); rt.read(p) != "the user's" {
			t.Fatalf("%s is gone (undo deleted %q, redo %q)", p, u.Deleted, r.Deleted)
		}
	}
	if _, err := rt.repo.Status(rt.ctx); err != nil {
		t.Fatalf("status: %v", err)
	}
}
