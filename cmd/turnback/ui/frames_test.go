package ui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
)

// history makes the fixture's three turns in session default: a Go
// file and a note added, the Go file changed, a directory of docs.
func history(w *world) {
	w.write("README.md", "# demo\n")
	w.turn("default", "add the server", func() {
		w.write("src/main.go", "package main\n\nfunc main() {\n\tprintln(\"hi\")\n}\n")
		w.write("notes.md", "one\ntwo\nthree\n")
	})
	w.turn("default", "say hello with fmt", func() {
		w.write("src/main.go", "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Println(\"hello\")\n}\n")
	})
	w.turn("default", "write the docs", func() {
		w.write("docs/a.md", "a\n")
		w.write("docs/b.md", "b\n")
		w.write("notes.md", "one\ntwo\nthree\nfour\n")
	})
}

// TestFramesNavigate: the first frame and every moving key, at 80×24.
func TestFramesNavigate(t *testing.T) {
	w := newWorld(t)
	history(w)
	before := w.tree()
	w.open(80, 24, false)
	w.golden("open")
	w.keys("j")
	w.golden("down")
	w.keys("G")
	w.golden("last")
	w.keys("g")
	w.golden("top-working-tree")
	w.keys("j")
	w.golden("session-row")
	w.keys("j", "tab")
	w.golden("paths")
	w.keys("down", "down")
	w.golden("paths-down")
	w.keys("up", "up", "up", "enter")
	w.golden("dir-collapsed")
	w.keys("enter", "down", "enter")
	w.golden("diff-focus")
	w.keys("shift+tab", "shift+tab", "j")
	w.golden("second-turn")
	w.keys("?")
	w.golden("help")
	w.keys("esc", "q")
	if !w.m.quitting {
		t.Error("q did not quit")
	}
	if got := w.tree(); got != before {
		t.Errorf("the folder changed without an action:\n%s\nwant\n%s", got, before)
	}
}

// TestFramesFilter: / filters the turns, then the paths; esc clears.
func TestFramesFilter(t *testing.T) {
	w := newWorld(t)
	history(w)
	w.open(80, 24, false)
	w.keys("/", "h", "e", "l", "l", "o", "enter")
	w.golden("filter-turns")
	w.keys("esc", "tab", "/", "n", "o", "t")
	w.golden("filter-paths")
	w.keys("enter", "esc")
	w.golden("filter-cleared")
}

// TestFramesWide: side by side at 160 columns, and a resize to 60×20.
func TestFramesWide(t *testing.T) {
	w := newWorld(t)
	history(w)
	w.open(160, 30, false)
	w.keys("j", "tab", "j", "j")
	w.golden("wide-side-by-side")
	w.send(resize(60, 20))
	w.golden("resized-60x20")
}

// TestFramesUndo: u shows the plan and changes nothing until y; n
// cancels.
func TestFramesUndo(t *testing.T) {
	w := newWorld(t)
	history(w)
	before := w.tree()
	w.open(80, 24, false)
	w.keys("j") // turn 2: undo turns 3 and 2
	w.keys("u")
	w.golden("undo-plan")
	if got := w.tree(); got != before {
		t.Fatalf("the plan changed the folder:\n%s", got)
	}
	w.keys("n")
	w.golden("undo-cancelled")
	if got := w.tree(); got != before {
		t.Fatalf("n changed the folder:\n%s", got)
	}
	w.keys("u", "y")
	w.golden("undo-done")
	if got, want := w.file("src/main.go"), "package main\n\nfunc main() {\n\tprintln(\"hi\")\n}\n"; got != want {
		t.Errorf("src/main.go = %q, want %q", got, want)
	}
	for _, p := range []string{"docs/a.md", "docs/b.md"} {
		if got := w.file(p); got != "<absent>" {
			t.Errorf("%s = %q, want it removed", p, got)
		}
	}
	if got := w.file("notes.md"); got != "one\ntwo\nthree\n" {
		t.Errorf("notes.md = %q", got)
	}
	// r on the undone turn 3 brings back turns 2 and 3.
	w.keys("k", "r")
	w.golden("redo-plan")
	w.keys("y")
	if got := w.tree(); got != before {
		t.Errorf("after redo:\n%s\nwant\n%s", got, before)
	}
}

// TestFramesConflictMerge: an edit since the turn stops the undo with
// its choices; m merges around it; a refused merge offers markers.
func TestFramesConflictMerge(t *testing.T) {
	w := newWorld(t)
	history(w)
	w.write("notes.md", "ONE\ntwo\nthree\nfour\n") // the user's edit, away from the turn's
	w.open(80, 24, false)
	w.keys("u")
	w.golden("conflict")
	w.keys("m")
	w.golden("merge-plan")
	w.keys("y")
	if got := w.file("notes.md"); got != "ONE\ntwo\nthree\n" {
		t.Errorf("notes.md = %q, want the turn's line gone and the edit kept", got)
	}
	for _, p := range []string{"docs/a.md", "docs/b.md"} {
		if got := w.file(p); got != "<absent>" {
			t.Errorf("%s = %q, want it removed", p, got)
		}
	}
}

// TestFramesMarkers: where the edit overlaps the turn's, the merge is
// refused and k writes conflict markers; esc cancels instead.
func TestFramesMarkers(t *testing.T) {
	w := newWorld(t)
	history(w)
	w.write("notes.md", "one\ntwo\nthree\nFOUR!\n") // over the turn's own line
	before := w.tree()
	w.open(80, 24, false)
	w.keys("m")
	w.golden("merge-refused")
	w.keys("esc")
	if got := w.tree(); got != before {
		t.Fatalf("esc changed the folder:\n%s", got)
	}
	w.keys("m", "k")
	w.golden("markers-plan")
	w.keys("y")
	if got := w.file("notes.md"); !strings.Contains(got, "<<<<<<<") || !strings.Contains(got, "FOUR!") {
		t.Errorf("notes.md = %q, want conflict markers around the edit", got)
	}
}

// TestFramesForce: f overwrites the edit, which the checkpoint keeps.
func TestFramesForce(t *testing.T) {
	w := newWorld(t)
	history(w)
	w.write("notes.md", "mine\n")
	w.open(80, 24, false)
	w.keys("u", "f")
	w.golden("force-plan")
	w.keys("y")
	if got := w.file("notes.md"); got != "one\ntwo\nthree\n" {
		t.Errorf("notes.md = %q", got)
	}
	w.keys("c")
	w.golden("checkpoints")
	w.keys("enter")
	w.golden("restore-plan")
	w.keys("y")
	if got := w.file("notes.md"); got != "mine\n" {
		t.Errorf("after restoring the checkpoint notes.md = %q, want the edit back", got)
	}
}

// TestFramesPathUndo: p undoes only the selected path of the turn.
func TestFramesPathUndo(t *testing.T) {
	w := newWorld(t)
	history(w)
	w.open(80, 24, false)
	w.keys("tab", "up") // docs/, the first path
	w.keys("p")
	w.golden("path-plan")
	w.keys("y")
	w.golden("path-done")
	for p, want := range map[string]string{"docs/a.md": "<absent>", "docs/b.md": "<absent>", "notes.md": "one\ntwo\nthree\nfour\n"} {
		if got := w.file(p); got != want {
			t.Errorf("%s = %q, want %q", p, got, want)
		}
	}
}

// TestFramesSessions: two sessions, --all, and the working tree row.
func TestFramesSessions(t *testing.T) {
	w := newWorld(t)
	history(w)
	w.turn("4f1c2a7e-8b3d-4c2e-9f1a-0123456789ab", "agent two", func() { w.write("b.txt", "b\n") })
	w.write("mine.txt", "mine\n")
	w.open(80, 24, true)
	w.golden("all-sessions")
	w.keys("g")
	w.golden("working-tree")
	w.keys("j")
	w.golden("session-header")
}

// TestFramesEmpty: a folder without a store shows no turns, and no
// store is created by looking.
func TestFramesEmpty(t *testing.T) {
	w := newWorld(t)
	w.write("a.txt", "a\n")
	w.open(80, 24, false)
	w.golden("empty")
	w.keys("u", "r", "c")
	w.golden("empty-checkpoints")
}

// TestFramesMouse: the wheel scrolls the pane under the pointer, a
// click selects the row under it.
func TestFramesMouse(t *testing.T) {
	w := newWorld(t)
	history(w)
	w.open(80, 24, false)
	w.send(tea.MouseClickMsg{Button: tea.MouseLeft, X: 3, Y: 5}) // turn 1
	w.golden("mouse-click-turn")
	if r := w.m.rows[w.m.cur]; r.kind != rowTurn || r.turn.N != 1 {
		t.Fatalf("the click selected %+v, want turn 1", r)
	}
	w.send(tea.MouseWheelMsg{Button: tea.MouseWheelUp, X: 3, Y: 5})
	if w.m.cur != 4 || w.m.top != 0 {
		t.Errorf("wheel up at the top: cur %d top %d", w.m.cur, w.m.top)
	}
	w.send(tea.MouseClickMsg{Button: tea.MouseLeft, X: 50, Y: 5}) // a path
	if w.m.focus != panePaths {
		t.Errorf("a click on the paths left focus %d", w.m.focus)
	}
}
