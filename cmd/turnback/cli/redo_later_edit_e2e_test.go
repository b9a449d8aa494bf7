package cli

// End-to-end test of the conflict rule for redo of several turns: an
// edit the user made after `undo 2` to a file of either undone turn makes
// `redo 2` exit 3 naming it and change nothing (folder and store byte
// for byte); --force proceeds and the edit is in the checkpoint that
// `restore <checkpoint>` brings back. Two single redos: the first one,
// whose turn's paths are clean, redoes turn 1; the second refuses.
// (Bug: the second step overwrote an edit of turn 2's file without a
// conflict.)

import (
	"reflect"
	"strings"
	"testing"

	"github.com/turnback/turnback/manifest/treetest"
)

// twoTurnsUndone: turn 1 sets a.txt to "a1", turn 2 b.txt to "b1"; both
// are undone. It returns the folder after the two turns. Its commands
// run in-process (env_test.go): the rule is the library's, and
// TestE2EConflict runs a refused redo through the binary.
func twoTurnsUndone(t *testing.T) (*cliEnv, treetest.Tree) {
	e := newInProcessEnv(t)
	treetest.MustWrite(t, e.dir, treetest.Tree{"a.txt": treetest.File("a0\n", 0o644), "b.txt": treetest.File("b0\n", 0o644)})
	e.ok("snap", "-m", "turn 1")
	e.write("a.txt", "a1\n")
	e.ok("snap", "-m", "turn 2")
	e.write("b.txt", "b1\n")
	e.ok("end")
	after := e.tree()
	e.ok("undo", "2")
	return e, after
}

// refused runs args, wants exit 3 with a conflict on path alone, and
// the folder (bytes and stamps) and the session's records (log and
// sessions, undone turns included) unchanged; its dry run says the same
// and leaves every file of the store byte for byte as it was (a real
// command opens the store for writing, which rewrites its database's
// files, so only the records are compared there).
func refused(t *testing.T, e *cliEnv, path string, args ...string) {
	t.Helper()
	records := func() string { return e.ok("--json", "log").stdout + e.ok("--json", "sessions").stdout }
	tree, stamps, recs := e.tree(), stampTree(t, e.dir), records()
	check := func(what string) {
		t.Helper()
		e.same(what, tree)
		sameStamps(t, what, stampTree(t, e.dir), stamps)
		if now := records(); now != recs {
			t.Errorf("%s: the records changed:\n%s\nwere\n%s", what, now, recs)
		}
	}
	what := strings.Join(args, " ")
	r := e.expect(3, args...)
	if !strings.Contains(r.stderr, path) {
		t.Errorf("%s: the conflict message does not name %s:\n%s", what, path, r.stderr)
	}
	check(what)
	d := parseRestoreDoc(t, e.expect(3, append([]string{"--json"}, args...)...), true)
	checkPathList(t, what+" conflicts", d.Conflicts, path)
	if d.Turns != 0 {
		t.Errorf("%s: %d turns in the refusal's document, want 0", what, d.Turns)
	}
	check(what + " --json")
	files := storeFiles(t, e.store)
	var dry restoreLists
	cliOneJSON(t, e.expect(3, append([]string{"--json"}, append(args, "--dry-run")...)...).stdout, &dry)
	checkPathList(t, what+" --dry-run conflicts", dry.Conflicts, path)
	check(what + " --dry-run")
	if now := storeFiles(t, e.store); !reflect.DeepEqual(now, files) {
		t.Errorf("%s --dry-run changed the store:\n%v\nwas\n%v", what, now, files)
	}
}

func TestE2ERedoLaterEdit(t *testing.T) {
	t.Parallel()
	g := newSubtestGroup(t)
	for _, c := range []struct{ name, file string }{{"turn 2's file", "b.txt"}, {"turn 1's file", "a.txt"}} {
		g.run("redo 2, "+c.name, func(t *testing.T) {
			e, after := twoTurnsUndone(t)
			e.write(c.file, "the user's edit\n")
			edited := e.tree()
			refused(t, e, c.file, "redo", "2")
			d := e.jsonOK("redo", "2", "--force")
			checkPathList(t, "redo 2 --force conflicts", d.Conflicts, c.file)
			if d.Turns != 2 {
				t.Errorf("redo 2 --force: %d turns, want 2", d.Turns)
			}
			e.same("after redo 2 --force", after)
			e.ok("restore", d.Checkpoint)
			e.same("after restoring the checkpoint of redo 2 --force", edited)
		})
	}
	g.run("redo, redo", func(t *testing.T) {
		e, after := twoTurnsUndone(t)
		e.write("b.txt", "the user's edit\n")
		d := e.jsonOK("redo")
		if d.Turns != 1 || len(d.Conflicts) > 0 {
			t.Errorf("the first redo: %+v, want turn 1 redone without conflicts", d)
		}
		between := e.tree()
		if want := (treetest.Tree{"a.txt": treetest.File("a1\n", 0o644), "b.txt": treetest.File("the user's edit\n", 0o644)}); !reflect.DeepEqual(between, want) {
			treetest.Check(t, "after the first redo", between, want)
		}
		refused(t, e, "b.txt", "redo")
		d = e.jsonOK("redo", "--force")
		checkPathList(t, "redo --force conflicts", d.Conflicts, "b.txt")
		e.same("after redo --force", after)
		e.ok("restore", d.Checkpoint)
		e.same("after restoring the checkpoint of redo --force", between)
	})
	g.wait()
}
