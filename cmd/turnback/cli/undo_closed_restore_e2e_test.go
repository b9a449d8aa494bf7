package cli

import (
	"strings"
	"testing"
)

// TestE2EUndoNothingClosedTurnRestorable: an undo --path that closes
// the open turn and finds nothing to do leaves that turn in the log
// with an after-state that show and restore find by its id. (They
// said "unknown snapshot id", exit 1: the state had no record.)
func TestE2EUndoNothingClosedTurnRestorable(t *testing.T) {
	t.Parallel()
	e := newCLI(t, "work")
	e.write("a.txt", "one\n")
	e.ok("snap", "-m", "turn 1")
	e.write("a.txt", "turn 1\n")
	e.ok("snap", "-m", "turn 2")
	e.write("b.txt", "turn 2\n")
	e.write("a.txt", "one\n") // the user puts a.txt back by hand
	if r := e.ok("undo", "2", "--path", "a.txt"); r.stdout != "nothing to undo\n" {
		t.Fatalf("undo 2 --path a.txt: %v, want nothing to undo", r)
	}
	closedAt := e.tree()
	var log struct {
		Turns []struct {
			Turn     int    `json:"turn"`
			After    string `json:"after"`
			ClosedBy string `json:"closed_by"`
		} `json:"turns"`
	}
	e.okJSON(&log, "log")
	if len(log.Turns) != 2 || log.Turns[0].Turn != 2 || log.Turns[0].ClosedBy != "undo" {
		t.Fatalf("log after the undo: %+v, want turn 2 closed by undo first", log.Turns)
	}
	id := log.Turns[0].After[:12]
	if r := e.ok("show", id); !strings.Contains(r.stdout, id) {
		t.Errorf("show %s: %v", id, r)
	}
	e.write("a.txt", "later\n")
	r := e.ok("restore", id)
	if want := "restored: 1 restored, 0 deleted, 0 brought back\n  M a.txt\n"; !strings.HasPrefix(r.stdout, want) {
		t.Errorf("restore %s: stdout %q, want it to begin %q", id, r.stdout, want)
	}
	e.same("after restore of the closed turn's after-state", closedAt)
}
