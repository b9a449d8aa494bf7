package ui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestLiveRefresh: a turn another process ends shows at the next poll,
// the cursor staying on the turn it was on; the user's edits show in
// the working tree row.
func TestLiveRefresh(t *testing.T) {
	w := newWorld(t)
	history(w)
	w.open(80, 24, false)
	w.keys("j") // turn 2
	w.turn("default", "an agent elsewhere", func() { w.write("agent.txt", "x\n") })
	w.write("mine.txt", "mine\n")
	w.m.workNext = time.Time{} // the working tree's status is due
	w.send(tickMsg{})
	w.golden("live-new-turn")
	if r := w.m.rows[w.m.cur]; r.kind != rowTurn || r.turn.N != 2 {
		t.Errorf("the cursor moved off turn 2: %+v", r)
	}
	if !strings.Contains(w.screen(), "an agent elsewh") || !strings.Contains(w.screen(), "+1 ~0 -0") {
		t.Errorf("the new turn or the edit is missing:\n%s", w.screen())
	}
	// Nothing changed: the poll reads nothing but the stamp.
	before := w.m.tl
	w.send(tickMsg{})
	if w.m.tl != before {
		t.Error("a poll with nothing changed reloaded the timeline")
	}
}

// TestUnprotectedMark: a turn that deleted a file over the size limit
// that nothing else holds is marked, and its path says so.
func TestUnprotectedMark(t *testing.T) {
	w := newWorld(t)
	w.limit = 16
	w.write("big.bin", strings.Repeat("x", 100))
	w.write("small.txt", "s\n")
	w.turn("default", "delete the big file", func() {
		if err := os.Remove(filepath.Join(w.dir, "big.bin")); err != nil {
			t.Fatal(err)
		}
	})
	w.open(80, 24, false)
	w.keys("tab")
	w.golden("unprotected")
	if r := w.m.rows[w.m.cur]; r.mark() != "!" {
		t.Errorf("mark %q, want !", r.mark())
	}
}
