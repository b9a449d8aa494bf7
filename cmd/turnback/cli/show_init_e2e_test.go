package cli

import (
	"os"
	"strings"
	"testing"
)

// TestShowNewestTurn (issue #36 item 9): show with no argument shows
// the session's newest closed turn, as show @N does; with none, it says
// so (exit 1).
func TestShowNewestTurn(t *testing.T) {
	t.Parallel()
	e := newUndoEnv(t)
	if r := e.expect(1, "show"); r.stderr != "turnback: no turn to show in session default\n" {
		t.Errorf("show without turns:\n%s", r)
	}
	e.write("a.txt", "a\n")
	e.ok("snap", "-m", "one")
	e.write("b.txt", "b\n")
	e.ok("end")
	e.ok("snap", "-m", "two")
	e.write("c.txt", "c\n")
	e.ok("end")
	want := e.ok("show", "@2").stdout
	if r := e.ok("show"); r.stdout != want || !strings.HasPrefix(want, "turn 2 of session default\n") {
		t.Errorf("show:\n%s\nwant show @2:\n%s", r, want)
	}
	// An open turn is not shown: the newest closed one is.
	e.ok("snap", "-m", "three")
	e.write("d.txt", "d\n")
	if r := e.ok("show"); r.stdout != want {
		t.Errorf("show with turn 3 open:\n%s\nwant show @2", r)
	}
}

// TestInitTwoAgents: init given two agents changes nothing and says to
// run one init per agent (exit 2).
func TestInitTwoAgents(t *testing.T) {
	t.Parallel()
	e := newHookEnv(t)
	r := e.expect(2, "init", "--claude", "--codex")
	if r.stderr != "turnback: one agent per init: run turnback init --claude, then turnback init --codex\nRun 'turnback --help' for usage.\n" {
		t.Errorf("init --claude --codex:\n%s", r)
	}
	if _, err := os.Lstat(e.path(".claude")); err == nil {
		t.Error("init with two agents wrote .claude")
	}
}
