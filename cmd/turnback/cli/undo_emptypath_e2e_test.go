package cli

// Issue 30 item 5: an empty --path (an unset shell variable) is a usage
// error that changes nothing; "." is the current directory.

import (
	"strings"
	"testing"

	"github.com/turnback/turnback/manifest/treetest"
)

// TestE2EUndoEmptyPath: undo --path "" (alone, with another path, in
// --json, as a dry run) exits 2 with one message and changes neither
// the folder nor the turns; --path . from the work tree reverts the
// whole turn, and from a subfolder only that subfolder.
func TestE2EUndoEmptyPath(t *testing.T) {
	t.Parallel()
	e := newCLI(t, "work")
	treetest.MustWrite(t, e.dir, treetest.Tree{"a.txt": treetest.File("a before\n", 0o644), "sub/x.txt": treetest.File("x before\n", 0o644)})
	before := e.tree()
	e.ok("snap", "-m", "agent turn")
	e.write("a.txt", "a after\n")
	e.write("sub/x.txt", "x after\n")
	e.ok("end")
	after := e.tree()
	log := e.ok("log").stdout

	const msg = "turnback: bad path: an empty path (\"\") names no file or directory; nothing was done\n"
	for _, args := range [][]string{
		{"undo", "--path", ""},
		{"undo", "--path="},
		{"undo", "--path", "a.txt", "--path", ""},
		{"undo", "--dry-run", "--path", ""},
		{"undo", "2", "--force", "--path", ""},
	} {
		r := e.expect(2, args...)
		if r.stdout != "" || !strings.HasPrefix(r.stderr, msg) {
			t.Errorf("%v: stdout %q, stderr %q, want it to begin %q", args, r.stdout, r.stderr, msg)
		}
		e.same("after "+strings.Join(args, " "), after)
		if got := e.ok("log").stdout; got != log {
			t.Fatalf("%v changed the log:\n%s\nwas:\n%s", args, got, log)
		}
	}
	r := e.expect(2, "--json", "undo", "--path", "")
	doc, err := oneJSONObject(r.stdout)
	if err != nil || doc["exit_code"] != float64(2) || doc["error"] != strings.TrimSuffix(msg, "\n") {
		t.Errorf("--json undo --path \"\": %v %v\n%s", doc, err, r)
	}
	e.same("after --json undo --path \"\"", after)

	// "." from a subfolder is that subfolder.
	r = e.exec(e.path("sub"), nil, "undo", "--path", ".")
	if r.code != 0 || !strings.Contains(r.stdout, "only sub:") {
		t.Fatalf("undo --path . in sub: %v", r)
	}
	partial := after.With(nil)
	partial["sub/x.txt"] = before["sub/x.txt"]
	e.same("after undo --path . in sub", partial)
	e.ok("redo")
	e.same("after its redo", after)
	// "." and "./" at the top of the work tree are all of it.
	for _, p := range []string{".", "./"} {
		r = e.exec(e.dir, nil, "undo", "--path", p)
		if r.code != 0 || !strings.Contains(r.stdout, "only .:") {
			t.Fatalf("undo --path %s at the top: %v", p, r)
		}
		e.same("after undo --path "+p, before)
		e.ok("redo")
		e.same("after its redo", after)
	}
}

// TestMCPUndoEmptyPath: turnback_undo with an empty path is a tool
// error naming it, and nothing changes.
func TestMCPUndoEmptyPath(t *testing.T) {
	t.Parallel()
	e := newHookEnv(t)
	e.write("a.txt", "one\n")
	e.ok("snap", "-m", "first")
	e.write("a.txt", "two\n")
	e.ok("end")
	after := e.tree()
	cs := mcpClient(t, e, e.dir)
	for _, paths := range [][]string{{""}, {"a.txt", ""}} {
		_, text := mcpCall(t, cs, true, "turnback_undo", map[string]any{"paths": paths})
		if !strings.Contains(text, `an empty path ("") names no file or directory; nothing was done`) {
			t.Errorf("undo of %q: %s", paths, text)
		}
		e.same("after the refused undo", after)
	}
	if turns, _ := mcpCall(t, cs, false, "turnback_turns", nil); len(turns["turns"].([]any)) != 1 || turns["turns"].([]any)[0].(map[string]any)["undone"] != nil {
		t.Errorf("turns after the refused undos: %v", turns)
	}
}
