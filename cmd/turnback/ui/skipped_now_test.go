package ui

import (
	"strings"
	"testing"
)

// TestSkippedNowLines: a path the newer state skips (a CACHEDIR.TAG
// came, a .gitignore line names it) is rightly not listed as deleted,
// but the right pane must say why it is missing, as show and status
// do: "skipped after the turn: src/ (generated)" for a turn, "skipped
// now: lib/ (...)" for the working tree. p does not undo such a path.
// The pane is 46 cells wide: the lines are cut.
func TestSkippedNowLines(t *testing.T) {
	w := newWorld(t)
	w.write("a.txt", "a\n")
	w.write("src/main.c", "int main(void) { return 0; }\n")
	w.write("lib/x.c", "x\n")
	w.turn("default", "make src a cache", func() {
		w.write("src/CACHEDIR.TAG", "Signature: 8a477f597d28d172789f06886806bc55\n")
		w.write("a.txt", "a2\n")
	})
	w.write(".gitignore", "lib/\n")
	w.open(80, 24, false)
	w.keys("tab")
	w.golden("skipped-after-turn")
	s := w.screen()
	if !strings.Contains(s, "skipped after the turn: src/ (generated)") || strings.Contains(s, "D src") {
		t.Errorf("the turn's paths do not say src/ is skipped after it:\n%s", s)
	}
	w.keys("down", "p")
	if w.m.modal != nil || !strings.Contains(w.screen(), "skipped") {
		t.Errorf("p on the skipped line plans an undo or says nothing:\n%s", w.screen())
	}
	w.keys("shift+tab", "g")
	s = w.screen()
	if !strings.Contains(s, "skipped now: lib/ (ignored by .gitignore lin") || strings.Contains(s, "D lib") {
		t.Errorf("the working tree's paths do not say lib/ is skipped now:\n%s", s)
	}
}
