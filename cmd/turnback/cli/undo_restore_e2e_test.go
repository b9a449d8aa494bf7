package cli

// End-to-end tests of "turnback restore" and of a work tree that is a
// subfolder of a project (undo, redo and restore leave the rest alone).

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/turnback/turnback/manifest/treetest"
)

// TestE2ERestore: bad ids fail and touch nothing; restore ID makes the
// tree exactly that snapshot (ignored paths excepted) and its checkpoint
// goes back.
func TestE2ERestore(t *testing.T) {
	t.Parallel()
	e := newUndoEnv(t)
	// Named, no daemon: the turns and most bad ids run in-process.
	e.autoWatch, e.store = false, filepath.Join(e.base, "store")
	e.extra = []string{"TURNBACK_SIZE_LIMIT=64K"}
	ip := e.setup()
	treetest.MustWrite(t, e.dir, treetest.Tree{".gitignore": treetest.File("*.log\n", 0o644), "a.txt": treetest.File("a0\n", 0o644), "d/b.txt": treetest.File("b0\n", 0o644),
		"pre.bin": treetest.File(pseudoRandom(100<<10, 7), 0o644)}) // uncaptured at every snapshot
	s0 := e.tree()
	id0 := ip.snapID("snap")
	e.write("a.txt", "a1\n")
	e.write("c.txt", "c1\n")
	id1 := ip.snapID("end")
	s1 := e.tree()
	ip.ok("snap")
	e.rm("d/b.txt")
	e.write("d/e.txt", "e2\n")
	e.chmod("a.txt", 0o600)
	e.write("node_modules/x.js", "ignored\n")
	e.write("run.log", "ignored too\n")
	id2 := ip.snapID("end")
	e.write("extra.txt", "the user's\n")
	e.write("extra/dir/f.txt", "deep\n")
	e.write("huge.bin", pseudoRandom(100<<10, 6))  // over the size limit, not at id0
	e.write("pre.bin", pseudoRandom(100<<10+1, 8)) // over the size limit, also at id0
	ignored := e.tree().Under("node_modules").With(e.tree().Under("run.log"))
	now := e.tree()
	stamps := stampTree(t, e.dir)

	bad := []struct {
		id   string
		code int // 0: any failure
	}{
		{"ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff", 1},
		{"0000000000", 1},
		{"zz", 0},
		{"not-an-id", 0},
		{"g" + id0[:11], 0},
		{id0 + "00", 0},
		{"", 0},
		{"../" + id0[:12], 0},
	}
	// An ambiguous prefix, if two of the known ids share one.
	byFirst := map[byte]int{}
	for _, id := range []string{id0, id1, id2} {
		if byFirst[id[0]]++; byFirst[id[0]] == 2 {
			bad = append(bad, struct {
				id   string
				code int
			}{id[:1], 2}) // under 4 hex digits: a usage error
		}
	}
	for i, b := range bad {
		for _, json := range []bool{false, true} {
			if json && i%3 != 0 {
				continue // a sample is enough
			}
			args := []string{"restore", b.id}
			if json {
				args = append([]string{"--json"}, args...)
			}
			run := ip.run // the first two rows also run the binary
			if i < 2 {
				run = e.run
			}
			r := run(args...)
			switch {
			case r.code == 0 || r.code == 3 || r.code == 4:
				t.Errorf("restore %q: want failure, got %v", b.id, r)
			case b.code != 0 && r.code != b.code:
				t.Errorf("restore %q: want exit %d, got %v", b.id, b.code, r)
			}
			if json {
				if v, err := oneJSONObject(r.stdout); err != nil || v["error"] == nil {
					t.Errorf("restore --json %q: want one error document (%v): %v", b.id, err, r)
				}
			}
		}
	}
	e.same("after the failed restores", now)
	sameStamps(t, "after the failed restores", stampTree(t, e.dir), stamps)

	// Human output, by short id.
	// (exit 5: pre.bin, uncaptured at id0, cannot be made what it was)
	r := e.expect(exitIncomplete, "restore", id0[:12])
	if !strings.HasPrefix(r.stdout, "restored: ") {
		t.Errorf("restore output: %q", r.stdout)
	}
	// pre.bin was uncaptured at id0: it stays as it is.
	e.same("after restore id0", s0.With(ignored).With(now.Under("pre.bin")))
	if !strings.Contains(r.stdout, "not restored: pre.bin") {
		t.Errorf("restore should name pre.bin as not restored:\n%s", r.stdout)
	}
	// To the session, the restore is an edit by the user: undoing turn 2
	// now conflicts and changes nothing.
	restored := e.tree()
	e.expect(3, "undo")
	e.same("after the refused undo", restored)
	cp := shortCheckpoint(t, r)
	e.ok("restore", cp)
	e.same("after restoring the checkpoint", now)

	// JSON, by full id.
	d := e.jsonIncomplete("restore", id1) // pre.bin again: exit 5
	checkRestoreDoc(t, "restore id1", d, 0,
		[]string{"a.txt"},
		[]string{"d/e.txt", "extra", "extra/dir", "extra/dir/f.txt", "extra.txt", "huge.bin"},
		[]string{"d/b.txt"}, nil, []string{"pre.bin"})
	e.same("after restore id1", s1.With(ignored).With(now.Under("pre.bin")))
	if d.Checkpoint == "" {
		t.Fatal("restore --json: empty checkpoint")
	}
	d = e.jsonOK("restore", d.Checkpoint)
	e.same("after restoring the JSON checkpoint", now)

	// Restoring id2 removes the user's files; a second time, nothing
	// is left to change.
	e.expect(exitIncomplete, "restore", id2) // pre.bin: exit 5
	at2 := now.Without("extra", "extra.txt", "huge.bin")
	e.same("after restore id2", at2)
	d = e.jsonIncomplete("restore", id2)
	checkRestoreDoc(t, "restore id2 again", d, 0, nil, nil, nil, nil, []string{"pre.bin"})
	e.same("after restore id2 again", at2)
}

// TestE2ESubdirWorkTree: with -C sub, the parent and the siblings of the
// work tree are never touched, whatever happens in them during turns.
func TestE2ESubdirWorkTree(t *testing.T) {
	t.Parallel()
	e := newUndoEnv(t)
	project := e.dir
	e.dir = filepath.Join(project, "sub")
	treetest.MustWrite(t, project, treetest.Tree{
		"parent.txt":         treetest.File("parent\n", 0o644),
		"sibling/s.txt":      treetest.File("sibling\n", 0o644),
		"sibling/deep/d.txt": treetest.File("deep\n", 0o644),
		".gitignore":         treetest.File("*.txt\n", 0o644), // not the work tree's: must not apply
		"sub/in.txt":         treetest.File("in 0\n", 0o644),
	})
	outsideWrite := func(p, data string) { cliWriteFile(t, filepath.Join(project, p), []byte(data)) }
	outside := func() treetest.Tree { return treetest.MustRead(t, project).Without("sub") }

	states := []treetest.Tree{e.tree()}
	id0 := e.snapID("snap")
	e.write("in.txt", "in 1\n")
	e.write("new.txt", "new 1\n")
	e.link("../parent.txt", "up")
	e.link("../sibling", "sl")
	outsideWrite("parent.txt", "parent, changed during turn 1\n")
	outsideWrite("sibling/new.txt", "new sibling file\n")
	e.ok("end")
	states = append(states, e.tree())

	e.ok("snap")
	e.rm("new.txt")
	e.write("d/f.txt", "f\n")
	outsideWrite("other.txt", "another\n")
	if err := os.Remove(filepath.Join(project, "sibling/deep/d.txt")); err != nil {
		t.Fatal(err)
	}
	e.ok("end")
	states = append(states, e.tree())

	e.ok("snap")
	e.rm("d")
	e.link("../sibling", "d") // a directory becomes a link out of the tree
	e.rm("up")
	e.write("up", "a file now\n")
	outsideWrite("parent.txt", "parent, changed during turn 3\n")
	e.ok("end")
	states = append(states, e.tree())

	check := func(what string, want treetest.Tree, args ...string) string {
		t.Helper()
		out, stamps := outside(), stampOutside(t, project)
		r := e.ok(args...)
		treetest.Check(t, what+" (outside)", outside(), out)
		sameStamps(t, what+" (outside)", stampOutside(t, project), stamps)
		e.same(what, want)
		return r.stdout
	}
	check("undo", states[2], "undo")
	check("undo", states[1], "undo")
	check("redo", states[2], "redo")
	check("redo", states[3], "redo")
	check("undo 3", states[0], "undo", "3")
	check("redo 3", states[3], "redo", "3")
	out := check("restore id0", states[0], "restore", id0)
	check("restore the checkpoint", states[3], "restore", shortCheckpoint(t, cliResult{stdout: out}))
	if got := treetest.MustRead(t, project)["parent.txt"].Data; got != "parent, changed during turn 3\n" {
		t.Errorf("parent.txt: %q", got)
	}
}

// stampOutside stamps everything below project except the work tree
// sub (and project itself, whose listing sub's entry is part of).
func stampOutside(t *testing.T, project string) map[string]string {
	t.Helper()
	st := stampTree(t, project)
	for p := range st {
		if p == "sub" || strings.HasPrefix(p, "sub/") || p == "." {
			delete(st, p)
		}
	}
	return st
}
