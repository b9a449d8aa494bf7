package cli

// End-to-end tests of undo, redo and restore: the built binary runs on
// real temporary folders (cliEnv, env_test.go); every outcome is checked
// by reading the whole tree back (kind, permission bits, content, link
// target) and comparing it byte for byte (treetest.Tree, tree_test.go). The
// --json document's checks are in undo_e2e_helpers_test.go; restore and
// subfolder work trees in undo_restore_e2e_test.go, type flips in
// undo_flips_e2e_test.go.

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/turnback/turnback/manifest/treetest"
)

// TestE2EUndoBasics: a created file is deleted, a modified one comes
// back, a deleted one comes back, a rename is reversed; redo re-applies.
func TestE2EUndoBasics(t *testing.T) {
	t.Parallel()
	e := newUndoEnv(t)
	treetest.MustWrite(t, e.dir, treetest.Tree{
		"keep.txt":        treetest.File("keep\n", 0o644),
		"mod.txt":         treetest.File("old content\n", 0o644),
		"del.txt":         treetest.File("to be deleted\n", 0o644),
		"src/old-name.go": treetest.File("package src\n", 0o644),
	})
	before := e.tree()
	e.ok("snap", "-m", "agent turn")
	e.write("new.txt", "the agent made me\n")
	e.write("mod.txt", "new content\n") // same size as before: racy-clean case
	e.write("mod.txt", "NEW content\n")
	e.rm("del.txt")
	e.mv("src/old-name.go", "src/new-name.go")
	endID := strings.TrimSpace(e.ok("end").stdout)
	after := e.tree()

	r := e.ok("undo")
	e.same("after undo", before)
	for _, line := range []string{
		"undid 1 turn: 1 restored, 2 deleted, 2 brought back\n",
		"  M mod.txt\n", "  D new.txt\n", "  D src/new-name.go\n", "  A del.txt\n", "  A src/old-name.go\n",
		fmt.Sprintf("checkpoint %s (turnback restore %s goes back)\n", endID, endID),
	} {
		if !strings.Contains(r.stdout, line) {
			t.Errorf("undo output lacks %q:\n%s", line, r.stdout)
		}
	}

	e.ok("redo")
	e.same("after redo", after)
	e.ok("undo")
	e.same("after the second undo", before)
	if r := e.ok("undo"); r.stdout != "nothing to undo\n" {
		t.Errorf("undo with nothing left: stdout %q", r.stdout)
	}
	e.same("after nothing to undo", before)
}

// threeTurns records three turns on e and returns the four states,
// before the first turn to after the third. With end false, each turn is
// closed by the next snap (the last one by the undo itself).
func threeTurns(t *testing.T, e *cliEnv, end bool) []treetest.Tree {
	t.Helper()
	treetest.MustWrite(t, e.dir, treetest.Tree{"base.txt": treetest.File("base 0\n", 0o644), "docs/readme.md": treetest.File("# readme\n", 0o644)})
	states := []treetest.Tree{e.tree()}
	turns := []func(){
		func() {
			e.write("a.txt", "a from turn 1\n")
			e.write("base.txt", "base 1\n")
		},
		func() {
			e.write("a.txt", "a from turn 2, longer\n")
			e.rm("base.txt")
			e.write("d/x.txt", "x\n")
		},
		func() {
			e.mv("d/x.txt", "d/y.txt")
			e.chmod("a.txt", 0o755)
			e.link("a.txt", "l")
			e.write("docs/readme.md", "# readme, turn 3\n")
		},
	}
	for i, turn := range turns {
		e.ok("snap", "-m", fmt.Sprintf("turn %d", i+1))
		turn()
		if end {
			e.ok("end")
		}
		states = append(states, e.tree())
	}
	return states
}

// TestE2EUndoWalk: three turns undone one by one give the three earlier
// states; a fourth undo says "nothing to undo" and exits 0.
func TestE2EUndoWalk(t *testing.T) {
	t.Parallel()
	g := newSubtestGroup(t)
	for _, end := range []bool{true, false} {
		g.run(fmt.Sprintf("end=%v", end), func(t *testing.T) {
			e := newUndoEnv(t)
			s := threeTurns(t, e, end)
			for i := 2; i >= 0; i-- {
				e.ok("undo")
				e.same(fmt.Sprintf("after undo back to state %d", i), s[i])
			}
			if r := e.ok("undo"); r.stdout != "nothing to undo\n" {
				t.Errorf("fourth undo: stdout %q, want %q", r.stdout, "nothing to undo\n")
			}
			e.same("after the fourth undo", s[0])
		})
	}
	g.wait()
}

// TestE2EUndoRedoWalk: undo 3, then redo three times walks forward
// through the same states; a turn after an undo clears the redo stack
// only if it changed the folder.
func TestE2EUndoRedoWalk(t *testing.T) {
	t.Parallel()
	g := newSubtestGroup(t)
	for _, end := range []bool{true, false} {
		g.run(fmt.Sprintf("end=%v", end), func(t *testing.T) {
			e := newInProcessEnv(t) // 24 commands: in-process (env_test.go)
			s := threeTurns(t, e, end)
			d := e.jsonOK("undo", "3")
			if d.Turns != 3 {
				t.Errorf("undo 3 reports %d turns", d.Turns)
			}
			e.same("after undo 3", s[0])
			for i := 1; i <= 3; i++ {
				e.ok("redo")
				e.same(fmt.Sprintf("after redo %d", i), s[i])
			}
			if r := e.ok("redo"); r.stdout != "nothing to redo\n" {
				t.Errorf("fourth redo: stdout %q", r.stdout)
			}
			e.same("after the fourth redo", s[3])

			e.ok("undo")
			e.same("undo after redo", s[2])
			// A turn that changes nothing keeps the redo stack (the
			// redo rule): the redo drops the empty turn and redoes.
			e.ok("snap", "-m", "a question")
			e.ok("redo")
			e.same("redo after a snap that changed nothing", s[3])
			e.ok("undo")
			e.ok("snap", "-m", "a question, ended")
			e.ok("end")
			e.ok("redo")
			e.same("redo after a turn that changed nothing", s[3])
			// A turn that changes the folder starts a new timeline.
			e.ok("undo")
			e.same("undo before a new timeline", s[2])
			e.ok("snap", "-m", "a new timeline")
			e.write("new.txt", "new\n")
			if end {
				e.ok("end")
			}
			timeline := e.tree()
			if r := e.ok("redo"); !strings.HasPrefix(r.stdout, "nothing to redo: turn 6 changed the folder after the undo (") {
				t.Errorf("redo after a turn that changed the folder: stdout %q, want nothing to redo, naming turn 6", r.stdout)
			}
			e.same("after redo refused", timeline)
			// Undo reverts the new turn, then turn 2.
			e.ok("undo")
			e.same("undo of the new turn", s[2])
			e.ok("undo")
			e.same("undo after the new turn", s[1])
		})
	}
	g.wait()
}

// TestE2EConflict: a file the user edited after end makes undo exit 3 and
// change nothing; --force reverts it and redo brings the edit back.
func TestE2EConflict(t *testing.T) {
	t.Parallel()
	g := newSubtestGroup(t)
	g.run("after end", func(t *testing.T) {
		e := newUndoEnv(t)
		treetest.MustWrite(t, e.dir, treetest.Tree{"f.txt": treetest.File("orig\n", 0o644), "other.txt": treetest.File("other\n", 0o644)})
		before := e.tree()
		e.ok("snap")
		e.write("f.txt", "agent\n")
		e.write("other.txt", "agent other\n")
		e.ok("end")
		e.write("f.txt", "the user's edit\n")
		edited := e.tree()
		stamps := stampTree(t, e.dir)

		r := e.expect(3, "undo")
		if !strings.Contains(r.stderr, "f.txt") || strings.Contains(r.stderr, "other.txt") {
			t.Errorf("conflict message should name f.txt only:\n%s", r.stderr)
		}
		e.same("after the refused undo", edited)
		sameStamps(t, "after the refused undo", stampTree(t, e.dir), stamps)
		// Refused again: the refusal recorded nothing that changes the answer.
		e.expect(3, "undo")
		e.same("after the second refused undo", edited)

		r = e.ok("undo", "--force")
		if !strings.Contains(r.stdout, "overwrote f.txt") {
			t.Errorf("forced undo should say it overwrote f.txt:\n%s", r.stdout)
		}
		e.same("after undo --force", before)
		e.ok("redo")
		e.same("after redo", edited)
	})

	g.run("between turns", func(t *testing.T) {
		e := newUndoEnv(t)
		treetest.MustWrite(t, e.dir, treetest.Tree{"f.txt": treetest.File("orig\n", 0o644), "g.txt": treetest.File("g0\n", 0o644)})
		before := e.tree()
		e.ok("snap", "-m", "turn 1")
		e.write("f.txt", "turn 1\n")
		e.ok("end")
		e.write("f.txt", "user, between the turns\n")
		between := e.tree()
		e.ok("snap", "-m", "turn 2")
		e.write("g.txt", "turn 2\n")
		e.ok("end")
		last := e.tree()

		d := parseRestoreDoc(t, e.expect(3, "--json", "undo", "2"), true)
		checkPathList(t, "undo 2 conflicts", d.Conflicts, "f.txt")
		e.same("after the refused undo 2", last)

		e.ok("undo", "2", "--force")
		e.same("after undo 2 --force", before)
		e.ok("redo")
		e.same("after the first redo (the user's edit is back)", between)
		e.ok("redo")
		e.same("after the second redo", last)
	})

	g.run("redo over an edit", func(t *testing.T) {
		e := newUndoEnv(t)
		treetest.MustWrite(t, e.dir, treetest.Tree{"f.txt": treetest.File("orig\n", 0o644)})
		e.ok("snap")
		e.write("f.txt", "agent\n")
		e.ok("end")
		after := e.tree()
		e.ok("undo")
		e.write("f.txt", "user after the undo\n")
		edited := e.tree()
		stamps := stampTree(t, e.dir)
		d := parseRestoreDoc(t, e.expect(3, "--json", "redo"), true)
		checkPathList(t, "redo conflicts", d.Conflicts, "f.txt")
		e.same("after the refused redo", edited)
		sameStamps(t, "after the refused redo", stampTree(t, e.dir), stamps)
		d = e.jsonOK("redo", "--force")
		checkPathList(t, "forced redo conflicts", d.Conflicts, "f.txt")
		e.same("after redo --force", after)
		// The overwritten edit is recoverable from the checkpoint.
		e.ok("restore", d.Checkpoint)
		e.same("after restoring the checkpoint of the forced redo", edited)
	})
	g.wait()
}

// TestE2EUserChangesKept: paths the user changed outside the turn are
// left as the user left them by undo and redo.
func TestE2EUserChangesKept(t *testing.T) {
	t.Parallel()
	e := newUndoEnv(t)
	treetest.MustWrite(t, e.dir, treetest.Tree{
		"a.txt":        treetest.File("a0\n", 0o644),
		"u.txt":        treetest.File("u0\n", 0o644),
		"user-del.txt": treetest.File("the user deletes me\n", 0o644),
		"mode.sh":      treetest.File("#!/bin/sh\n", 0o644),
	})
	before := e.tree()
	e.ok("snap")
	e.write("a.txt", "a1 by the agent\n")
	e.write("agentdir/file.txt", "agent file\n")
	e.ok("end")
	agent := e.tree()

	e.write("u.txt", "u1 by the user\n")
	e.write("user-new.txt", "new, by the user\n")
	e.rm("user-del.txt")
	e.chmod("mode.sh", 0o755)
	e.write("agentdir/user.txt", "the user's file in the agent's directory\n")
	user := e.tree()

	d := e.jsonOK("undo")
	checkRestoreDoc(t, "undo", d, 1, []string{"a.txt"}, []string{"agentdir/file.txt"}, nil, nil, []string{"agentdir"})
	e.same("after undo", user.With(treetest.Tree{"a.txt": before["a.txt"], "agentdir/file.txt": {}}))
	e.ok("redo")
	e.same("after redo", user.With(treetest.Tree{"a.txt": agent["a.txt"]}))
}

// TestE2EIgnored: ignored paths (.gitignore'd files, built-in directory
// names, any .git) are neither deleted nor rewound, even when the agent
// created them; a directory the agent created stays if it holds one.
func TestE2EIgnored(t *testing.T) {
	t.Parallel()
	e := newUndoEnv(t)
	treetest.MustWrite(t, e.dir, treetest.Tree{
		".gitignore":              treetest.File("*.log\n/secret/\n", 0o644),
		".git/HEAD":               treetest.File("ref: refs/heads/main\n", 0o644),
		".git/config":             treetest.File("[core]\n", 0o644),
		".env":                    treetest.File("SECRET=1\n", 0o644), // a file: captured
		"src.txt":                 treetest.File("src v1\n", 0o644),
		"old.log":                 treetest.File("old log\n", 0o644),
		"nested/.git/HEAD":        treetest.File("nested head\n", 0o644),
		"nested/.gitignore":       treetest.File("generated.txt\n", 0o644),
		"nested/code.txt":         treetest.File("nested code v1\n", 0o644),
		"node_modules/pre/i.js":   treetest.File("pre\n", 0o644),
		"lib/__pycache__/m.pyc":   treetest.File("pyc\n", 0o644),
		"lib/m.py":                treetest.File("print(1)\n", 0o644),
		"lib/deep/.git/objects/x": treetest.File("deep repo object\n", 0o644),
	})
	before := e.tree()
	e.ok("snap")
	e.write("src.txt", "src v2\n")
	e.write(".env", "SECRET=2\n")
	e.write("app.log", "agent log\n")
	e.write("old.log", "old log, appended by the agent\n")
	e.write("node_modules/newpkg/index.js", "new package\n")
	e.write("node_modules/pre/i.js", "pre, changed\n")
	e.write(".git/index", "agent index\n")
	e.write(".git/HEAD", "ref: refs/heads/agent\n")
	e.write("nested/.git/objects/ab/cdef", "object\n")
	e.write("nested/.git/HEAD", "nested head, moved\n")
	e.write("nested/generated.txt", "generated\n")
	e.write("nested/code.txt", "nested code v2\n")
	e.write("secret/key", "k\n")
	e.write("newdir/file.txt", "x\n")
	e.write("newdir/node_modules/m.js", "m\n")
	e.write("py/.venv/pyvenv.cfg", "home = /usr/bin\n") // a real environment: skipped
	e.write("py/.venv/bin/python", "py\n")
	e.write("lib/__pycache__/m.pyc", "pyc 2\n")
	e.rm("lib/deep/.git")
	e.write("lib/deep/.git/objects/y", "new deep object\n")
	e.ok("end")
	agent := e.tree()

	d := e.jsonOK("undo")
	checkPathList(t, "undo restored", d.Restored, ".env", "nested/code.txt", "src.txt")
	checkPathList(t, "undo deleted", d.Deleted, "newdir/file.txt")
	checkPathList(t, "undo created", d.Created)
	// Created directories that still hold ignored paths stay.
	checkPathList(t, "undo not_restorable", d.NotRestorable, "newdir", "py")
	want := agent.With(treetest.Tree{
		"src.txt":         before["src.txt"],
		".env":            before[".env"],
		"nested/code.txt": before["nested/code.txt"],
		"newdir/file.txt": {},
	})
	e.same("after undo", want)

	e.ok("redo")
	e.same("after redo", agent)
}

// TestE2EUncaptured: preexisting uncaptured paths stay; an agent-created
// file over the size limit is removed by undo and comes back with redo.
func TestE2EUncaptured(t *testing.T) {
	t.Parallel()
	g := newSubtestGroup(t)

	g.run("preexisting files over the size limit", func(t *testing.T) {
		e := newUndoEnv(t)
		e.extra = []string{"TURNBACK_SIZE_LIMIT=64K"}
		treetest.MustWrite(t, e.dir, treetest.Tree{
			"big.bin":   treetest.File(pseudoRandom(100<<10, 1), 0o644),
			"grown.bin": treetest.File(pseudoRandom(100<<10, 2), 0o644),
			"gone.bin":  treetest.File(pseudoRandom(100<<10, 3), 0o644),
			"small.txt": treetest.File("small\n", 0o644),
			"grow.txt":  treetest.File("small for now\n", 0o644),
		})
		before := e.tree()
		e.ok("snap")
		e.write("small.txt", "small, changed\n")
		e.write("grow.txt", pseudoRandom(100<<10, 5)) // now over the limit
		e.write("grown.bin", before["grown.bin"].Data+"appended by the agent")
		e.rm("gone.bin")
		e.ok("end")
		agent := e.tree()

		// Their content was never stored and nothing else holds it:
		// the rest is undone, and the undo says it is incomplete (exit 5).
		d := e.jsonIncomplete("undo")
		checkPathList(t, "undo restored", d.Restored, "grow.txt", "small.txt")
		checkPathList(t, "undo deleted", d.Deleted)
		checkPathList(t, "undo created", d.Created)
		checkPathList(t, "undo not_restorable", d.NotRestorable, "gone.bin", "grown.bin")
		e.same("after undo", agent.With(treetest.Tree{"small.txt": before["small.txt"], "grow.txt": before["grow.txt"]}))
		e.ok("redo")
		e.same("after redo", agent)
	})

	g.run("large directory that appeared before the turn", func(t *testing.T) {
		e := newUndoEnv(t)
		treetest.MustWrite(t, e.dir, treetest.Tree{"src.txt": treetest.File("v1\n", 0o644)})
		e.ok("snap") // a previous snapshot: the directory below is new
		e.ok("end")  // (dropped: nothing changed)
		big := treetest.Tree{}
		for i := 0; i < 200; i++ {
			big[fmt.Sprintf("vendor/pkg%02d/f%03d.go", i%7, i)] = treetest.File(fmt.Sprintf("package p // %d\n", i), 0o644)
		}
		treetest.MustWrite(t, e.dir, big)
		before := e.tree()
		e.ok("snap")
		e.write("src.txt", "v2\n")
		e.write("vendor/agent-note.txt", "written by the agent into the uncaptured directory\n")
		e.rm("vendor/pkg00/f000.go")
		e.ok("end")
		agent := e.tree()

		d := e.jsonOK("undo")
		checkPathList(t, "undo restored", d.Restored, "src.txt")
		checkPathList(t, "undo deleted", d.Deleted)
		e.same("after undo", agent.With(treetest.Tree{"src.txt": before["src.txt"]}))
		e.ok("redo")
		e.same("after redo", agent)
	})

	g.run("large directory the agent created", func(t *testing.T) {
		e := newUndoEnv(t)
		treetest.MustWrite(t, e.dir, treetest.Tree{"src.txt": treetest.File("v1\n", 0o644)})
		before := e.tree()
		e.ok("snap")
		e.write("src.txt", "v2\n")
		gen := treetest.Tree{}
		for i := 0; i < 250; i++ {
			gen[fmt.Sprintf("gen/%03d.txt", i)] = treetest.File(fmt.Sprintf("generated %d\n", i), 0o644)
		}
		treetest.MustWrite(t, e.dir, gen)
		e.ok("end")
		agent := e.tree()

		// Its content was never captured: undo keeps it (nothing is lost),
		// and says it is incomplete (exit 5).
		d := e.jsonIncomplete("undo")
		checkPathList(t, "undo restored", d.Restored, "src.txt")
		checkPathList(t, "undo deleted", d.Deleted)
		checkPathList(t, "undo not_restorable", d.NotRestorable, "gen")
		e.same("after undo", agent.With(treetest.Tree{"src.txt": before["src.txt"]}))
		e.ok("redo")
		e.same("after redo", agent)
	})

	// Over a limit of 1 MiB, not the default 10 MiB: the same crossing,
	// an eighth of the bytes, still a file of several chunks.
	g.run("agent-created 1.5 MiB file", func(t *testing.T) {
		e := newUndoEnv(t)
		e.extra = []string{"TURNBACK_SIZE_LIMIT=1M"}
		treetest.MustWrite(t, e.dir, treetest.Tree{"keep.txt": treetest.File("keep\n", 0o644)})
		before := e.tree()
		e.ok("snap")
		e.write("big.bin", pseudoRandom(3<<19, 4))
		e.ok("end")
		agent := e.tree()

		d := e.jsonOK("undo")
		checkRestoreDoc(t, "undo", d, 1, nil, []string{"big.bin"}, nil, nil, nil)
		e.same("after undo", before)
		d = e.jsonOK("redo")
		checkRestoreDoc(t, "redo", d, 1, nil, nil, []string{"big.bin"}, nil, nil)
		e.same("after redo", agent)
		// Once more: the content now comes from the store both ways.
		e.ok("undo")
		e.same("after the second undo", before)
		e.ok("redo")
		e.same("after the second redo", agent)

		// A user edit of the big file (its size changed) is a conflict;
		// forced, the edit stays recoverable from the checkpoint.
		e.write("big.bin", agent["big.bin"].Data+"the user's tail")
		edited := e.tree()
		d = parseRestoreDoc(t, e.expect(3, "--json", "undo"), true)
		checkPathList(t, "conflicting undo", d.Conflicts, "big.bin")
		e.same("after the conflicting undo", edited)
		d = e.jsonOK("undo", "--force")
		e.same("after undo --force", before)
		e.ok("restore", d.Checkpoint)
		e.same("after restoring the checkpoint", edited)
	})

	// Invariant 4 also holds for a file over the size limit: a user edit
	// that keeps its size is still an edit.
	g.run("same-size edit of an agent-created file over the size limit", func(t *testing.T) {
		e := newUndoEnv(t)
		e.extra = []string{"TURNBACK_SIZE_LIMIT=64K"}
		treetest.MustWrite(t, e.dir, treetest.Tree{"keep.txt": treetest.File("keep\n", 0o644)})
		e.ok("snap")
		big := []byte(pseudoRandom(100<<10, 9))
		e.write("big.bin", string(big))
		e.ok("end")
		big[1000] ^= 0xff
		e.write("big.bin", string(big))
		edited := e.tree()
		d := parseRestoreDoc(t, e.expect(3, "--json", "undo"), true)
		checkPathList(t, "undo conflicts", d.Conflicts, "big.bin")
		e.same("after undo", edited)
	})
	g.wait()
}

// TestE2EJSON: --json of undo, redo and restore prints exactly one
// document with the contract's keys and path lists, also on conflict.
func TestE2EJSON(t *testing.T) {
	t.Parallel()
	e := newUndoEnv(t)
	treetest.MustWrite(t, e.dir, treetest.Tree{
		"keep.txt":         treetest.File("keep\n", 0o644),
		"mod.txt":          treetest.File("mod 0\n", 0o644),
		"del.txt":          treetest.File("del\n", 0o644),
		"dir/deep/old.txt": treetest.File("old\n", 0o644),
	})
	before := e.tree()
	id0 := e.snapID("snap")
	e.write("dir/deep/new.txt", "new\n")
	e.write("mod.txt", "mod 1, longer\n")
	e.rm("del.txt")
	e.write("newdir/f.txt", "f\n")
	e.link("keep.txt", "newlink")
	id1 := e.snapID("end")
	after := e.tree()

	d := e.jsonOK("undo")
	checkRestoreDoc(t, "undo", d, 1, []string{"mod.txt"}, []string{"dir/deep/new.txt", "newdir", "newdir/f.txt", "newlink"}, []string{"del.txt"}, nil, nil)
	if d.Checkpoint != id1 {
		t.Errorf("undo checkpoint %s, want the after-state %s", d.Checkpoint, id1)
	}
	e.same("after undo", before)

	d = e.jsonOK("redo")
	checkRestoreDoc(t, "redo", d, 1, []string{"mod.txt"}, []string{"del.txt"}, []string{"dir/deep/new.txt", "newdir", "newdir/f.txt", "newlink"}, nil, nil)
	if d.Checkpoint != id0 {
		t.Errorf("redo checkpoint %s, want the before-state %s", d.Checkpoint, id0)
	}
	e.same("after redo", after)

	d = e.jsonOK("redo")
	checkRestoreDoc(t, "nothing to redo", d, 0, nil, nil, nil, nil, nil)
	if d.Checkpoint != "" {
		t.Errorf("nothing to redo: checkpoint %q", d.Checkpoint)
	}

	// Conflicts: modified, deleted and re-created since the turn.
	e.write("mod.txt", "the user's\n")
	e.rm("dir/deep/new.txt")
	e.write("del.txt", "the user brought it back\n")
	e.chmod("newdir/f.txt", 0o600)
	e.rm("newlink")
	e.write("newlink", "a file where the turn left a symlink\n")
	edited := e.tree()
	stamps := stampTree(t, e.dir)
	r := e.expect(3, "--json", "undo")
	d = parseRestoreDoc(t, r, true)
	// dir/deep/new.txt is gone already, as the undo would leave it: a
	// path the undo does not change is no conflict.
	checkRestoreDoc(t, "conflicting undo", d, d.Turns, nil, nil, nil,
		[]string{"del.txt", "mod.txt", "newdir/f.txt", "newlink"}, nil)
	if r.stderr == "" {
		t.Error("conflicting undo: nothing on stderr")
	}
	e.same("after the conflicting undo", edited)
	sameStamps(t, "after the conflicting undo", stampTree(t, e.dir), stamps)

	d = e.jsonOK("undo", "--force")
	checkRestoreDoc(t, "forced undo", d, 1, []string{"del.txt", "mod.txt"}, []string{"newdir", "newdir/f.txt", "newlink"}, nil,
		[]string{"del.txt", "mod.txt", "newdir/f.txt", "newlink"}, nil)
	e.same("after the forced undo", before)

	d = e.jsonOK("restore", d.Checkpoint)
	checkRestoreDoc(t, "restore", d, 0, []string{"del.txt", "mod.txt"}, nil, []string{"newdir", "newdir/f.txt", "newlink"}, nil, nil)
	e.same("after restore", edited)

	// Usage errors also give one document, and change nothing.
	for _, args := range [][]string{{"undo", "0"}, {"undo", "x"}, {"redo", "-1"}, {"undo", "1", "2"}} {
		r := e.run(append([]string{"--json"}, args...)...)
		if r.code != 2 {
			t.Errorf("want exit 2, got %v", r)
		}
		if v, err := oneJSONObject(r.stdout); err != nil || v["error"] == nil || v["exit_code"] != 2.0 {
			t.Errorf("want one error document: %v: %v", r, err)
		}
	}
	e.same("after the usage errors", edited)

	t.Run("odd names", func(t *testing.T) {
		t.Parallel()
		e := newUndoEnv(t)
		treetest.MustWrite(t, e.dir, treetest.Tree{"keep.txt": treetest.File("keep\n", 0o644)})
		before := e.tree()
		names := []string{"sp ace.txt", "ünïcødé.txt", `quo"te.txt`, "-rf", `back\slash`, "new\nline", "dir with space/日本.txt", "tab\tname"}
		e.ok("snap")
		for _, n := range names {
			e.write(n, n+"\n")
		}
		e.ok("end")
		after := e.tree()
		d := e.jsonOK("undo")
		checkRestoreDoc(t, "undo", d, 1, nil, append([]string{"dir with space"}, names...), nil, nil, nil)
		e.same("after undo", before)
		d = e.jsonOK("redo")
		checkRestoreDoc(t, "redo", d, 1, nil, nil, append([]string{"dir with space"}, names...), nil, nil)
		e.same("after redo", after)
	})
}

// TestE2ESessions: two sessions on one folder each undo only their own
// turns.
func TestE2ESessions(t *testing.T) {
	t.Parallel()
	e := newUndoEnv(t)
	// Named, no daemon (a small folder): the turns run in-process.
	e.autoWatch, e.store = false, filepath.Join(e.base, "store")
	treetest.MustWrite(t, e.dir, treetest.Tree{"a.txt": treetest.File("a0\n", 0o644), "b.txt": treetest.File("b0\n", 0o644), "shared.txt": treetest.File("s0\n", 0o644)})
	s := func(name string, args ...string) cliResult {
		t.Helper()
		return e.ok(append([]string{"--session", name}, args...)...)
	}
	turn := func(name string, edit func()) {
		t.Helper()
		e.setup().ok("--session", name, "snap")
		edit()
		e.setup().ok("--session", name, "end")
	}
	turn("a", func() { e.write("a.txt", "a1\n") })
	turn("b", func() { e.write("b.txt", "b1\n") })
	turn("a", func() { e.write("shared.txt", "s by a\n") })
	all := e.tree()

	s("b", "undo")
	e.same("b undo", all.With(treetest.Tree{"b.txt": treetest.File("b0\n", 0o644)}))
	s("a", "undo")
	e.same("a undo", all.With(treetest.Tree{"b.txt": treetest.File("b0\n", 0o644), "shared.txt": treetest.File("s0\n", 0o644)}))
	// TURNBACK_SESSION selects a session too.
	e.extra = []string{"TURNBACK_SESSION=a"}
	e.ok("undo")
	e.extra = nil
	e.same("a undo 2", all.With(treetest.Tree{"a.txt": treetest.File("a0\n", 0o644), "b.txt": treetest.File("b0\n", 0o644), "shared.txt": treetest.File("s0\n", 0o644)}))
	if r := s("a", "undo"); r.stdout != "nothing to undo\n" {
		t.Errorf("a: third undo: %q", r.stdout)
	}
	if r := s("b", "undo"); r.stdout != "nothing to undo\n" {
		t.Errorf("b: second undo: %q", r.stdout)
	}
	if r := s("default", "undo"); r.stdout != "nothing to undo\n" {
		t.Errorf("default session: %q", r.stdout)
	}
	// Without a session and none in default, sessions one after the
	// other: the newest turn's, a, which has nothing left to undo.
	if r := e.ok("undo"); r.stdout != "nothing to undo\n" || !strings.HasPrefix(r.stderr, "using session a (") {
		t.Errorf("undo without a session:\n%s", r)
	}
	s("b", "redo")
	e.same("b redo", all.With(treetest.Tree{"a.txt": treetest.File("a0\n", 0o644), "shared.txt": treetest.File("s0\n", 0o644)}))
	if r := s("b", "redo"); r.stdout != "nothing to redo\n" {
		t.Errorf("b: second redo: %q", r.stdout)
	}
	s("a", "redo", "2")
	e.same("a redo 2", all)

	// A later turn of b over a path a's turn changed looks like a user
	// edit to a: a's undo refuses.
	turn("b", func() { e.write("shared.txt", "s by b\n") })
	last := e.tree()
	e.expect(3, "--session", "a", "undo")
	e.same("a's refused undo", last)
	s("b", "undo")
	e.same("b undo of shared", all)
}
