package cli

import (
	"regexp"
	"strings"
	"testing"
)

// TestCheckpointsList (issue #36 item 8): every checkpoint undo, redo
// and restore made is listed newest first with the command that made it
// and its paths, and restore of a listed id brings that state back; a
// redo whose stack a later turn replaced says which turn and points
// there.
func TestCheckpointsList(t *testing.T) {
	t.Parallel()
	e := newUndoEnv(t)
	e.write("a.txt", "a\n")
	if r := e.ok("checkpoints"); r.stdout != "no checkpoints: undo, redo and restore make one of the state they replace\n" {
		t.Errorf("checkpoints of a new folder:\n%s", r)
	}
	e.ok("snap", "-m", "one")
	e.write("a.txt", "a by the agent\n")
	e.write("b.txt", "b\n")
	e.ok("end")
	agent := e.tree()
	e.ok("undo")
	e.ok("snap", "-m", "two")
	e.write("c.txt", "c\n")
	e.ok("end")

	r := e.ok("checkpoints")
	want := regexp.MustCompile(`^CHECKPOINT    TIME                 SESSION  MADE BY      PATHS
([0-9a-f]{12})  \d{4}-\d\d-\d\d \d\d:\d\d:\d\d  default  undo turn 1  2: a.txt, b.txt
turnback restore ([0-9a-f]{12}) brings the folder back to a checkpoint \(itself making one of the state it replaces\)
$`)
	m := want.FindStringSubmatch(r.stdout)
	if m == nil || m[1] != m[2] {
		t.Fatalf("checkpoints:\n%s\nwant it matching %s", r, want)
	}
	var doc struct {
		Checkpoints []struct {
			ID, Session, Command, Restore string
			Turn                          int
			Paths                         []string
			More                          int
		} `json:"checkpoints"`
	}
	e.okJSON(&doc, "checkpoints")
	if c := doc.Checkpoints; len(c) != 1 || !strings.HasPrefix(c[0].ID, m[1]) || c[0].Command != "undo turn 1" || c[0].Session != "default" ||
		strings.Join(c[0].Paths, " ") != "a.txt b.txt" || c[0].Restore != "turnback restore "+c[0].ID || c[0].Turn != 1 {
		t.Errorf("checkpoints --json: %+v", c)
	}

	// Turn 2 changed the folder: nothing to redo, and where to look.
	if r := e.ok("redo"); !regexp.MustCompile(`^nothing to redo: turn 2 changed the folder after the undo \(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\) and replaced the undone turns; the states the undo replaced are listed by turnback checkpoints\n$`).MatchString(r.stdout) {
		t.Errorf("redo after a new timeline:\n%s", r)
	}
	// The listed checkpoint brings the agent's state back, and restore
	// lists its own.
	e.ok("restore", m[1])
	e.same("after restore of the undo's checkpoint", agent)
	r = e.ok("checkpoints")
	if lines := strings.Split(r.stdout, "\n"); len(lines) != 5 || !strings.Contains(lines[1], "  restore "+m[1]+"  ") || !strings.Contains(lines[2], "  undo turn 1  ") {
		t.Errorf("checkpoints after restore:\n%s", r)
	}
}
