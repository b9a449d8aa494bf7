package cli

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestDroppedTurnSaysIgnoredChanged: a turn whose only changes are in
// skipped paths is dropped with a message naming them and their rule
// (end's stderr, end --json's "message"); the undo right after names
// the older turn it undoes, once. A dropped turn that changed nothing
// at all keeps the plain message.
func TestDroppedTurnSaysIgnoredChanged(t *testing.T) {
	t.Parallel()
	e := newStoreEnv(t)
	e.write(".gitignore", "*.log\n")
	e.write("a.log", "one\n")
	e.write("node_modules/m/x.js", "x\n")
	e.write("src/main.go", "package main\n")
	ip := e.setup() // the snaps are the setting; each end is the check
	ip.ok("snap", "-m", "edit main")
	e.write("src/main.go", "package main // edited\n")
	ip.ok("end")

	ip.ok("snap", "-m", "only logs")
	e.write("a.log", "one\ntwo\n")
	r := e.ok("end")
	if want := "turn 2 changed only ignored paths: a.log (ignored by .gitignore line 1: *.log); nothing to undo for it\n"; r.stderr != want {
		t.Errorf("end, stderr:\n%q\nwant\n%q", r.stderr, want)
	}

	ip.ok("snap", "-m", "nothing")
	if r := e.ok("end"); r.stderr != "turn 3 changed nothing and was dropped\n" {
		t.Errorf("end of an empty turn, stderr: %q", r.stderr)
	}

	ip.ok("snap", "-m", "a new dependency")
	e.write("node_modules/n/y.js", "y\n") // node_modules' own mtime moves
	var doc struct {
		Message        string `json:"message"`
		IgnoredChanged []struct {
			Path string `json:"path"`
			Rule string `json:"rule"`
		} `json:"ignored_changed"`
	}
	r = e.ok("--json", "end")
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
		t.Fatal(err)
	}
	if want := "turn 4 changed only ignored paths: node_modules/ (built-in name (dependencies or a cache)); nothing to undo for it"; doc.Message != want {
		t.Errorf("end --json message %q, want %q", doc.Message, want)
	}
	if len(doc.IgnoredChanged) != 1 || doc.IgnoredChanged[0].Path != "node_modules" || doc.IgnoredChanged[0].Rule != "name" {
		t.Errorf("end --json ignored_changed %+v", doc.IgnoredChanged)
	}

	r = e.ok("undo")
	want := "turn 4 changed nothing turnback captures and was dropped: this undid turn 1 \"edit main\" (ended just now)\n" +
		"undid 1 turn: 1 restored, 0 deleted, 0 brought back\n  M src/main.go\n"
	if !strings.HasPrefix(r.stdout, want) {
		t.Errorf("undo after a dropped turn:\n%s\nwant it to start with\n%s", r.stdout, want)
	}
	if got := string(e.read("src/main.go")); got != "package main\n" {
		t.Errorf("src/main.go %q after the undo", got)
	}
	ip.ok("redo")
	// Said once: the next undo (no turn dropped since) says nothing of it.
	if r := e.ok("undo"); strings.Contains(r.stdout, "dropped") {
		t.Errorf("a second undo repeats the dropped turn:\n%s", r.stdout)
	}
}

// TestHookEndSaysIgnoredChanged: the agent's end hook says on stderr
// that the turn changed only ignored paths; its stdout stays what the
// agent accepts.
func TestHookEndSaysIgnoredChanged(t *testing.T) {
	t.Parallel()
	e := newHookEnv(t)
	e.write(".gitignore", "*.log\n")
	e.write("a.log", "one\n")
	e.write("main.go", "package main\n")
	e.hook("claude", hookPayload(t, "claude_user_prompt_submit.json", e.dir), 0)
	e.write("a.log", "one\ntwo\n")
	r := e.hook("claude", hookPayload(t, "claude_stop.json", e.dir), 0)
	want := "turnback: turn 1 changed only ignored paths: a.log (ignored by .gitignore line 1: *.log); nothing to undo for it\n"
	if r.stderr != want {
		t.Errorf("end hook stderr:\n%q\nwant\n%q", r.stderr, want)
	}
}
