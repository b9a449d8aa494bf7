package cli

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
)

// TestConflictSaidOnce (issue #36 item 10): a conflict is reported once,
// with the commands that go on; after a refused --merge, --merge=markers.
func TestConflictSaidOnce(t *testing.T) {
	t.Parallel()
	e := newUndoEnv(t)
	e.write("a.txt", "a\n")
	e.ok("snap")
	e.write("a.txt", "agent\n")
	e.ok("end")
	e.write("a.txt", "mine\n")
	r := e.expect(exitConflict, "undo")
	cli := "turnback -C " + e.dir // as the test runs it
	want := "turnback: conflict: undo changed nothing: 1 path was edited after the turns:\n" +
		"  a.txt: modified since\n" +
		"Keep the edits, or run one of:\n" +
		"  " + cli + " undo --merge   revert the turns' changes, keep the edits (text files)\n" +
		"  " + cli + " undo --force   undo anyway: the edits stay in a checkpoint (redo brings them back)\n"
	if r.stdout != "" || r.stderr != want {
		t.Errorf("undo over an edit:\n%s\nwant stderr\n%s", r, want)
	}
	r = e.expect(exitConflict, "--session", "default", "undo", "--merge")
	if !strings.Contains(r.stderr, "  a.txt: modified since; not merged: the edits overlap the turns' changes\n") ||
		!strings.Contains(r.stderr, "  "+cli+" --session default undo --merge=markers   merge anyway, with conflict markers where they overlap\n") {
		t.Errorf("undo --merge over an overlapping edit:\n%s", r)
	}
}

// TestRestoreListing: a dry run is labelled a plan; a directory deleted
// or brought back whole with 10 or more paths below it is one line,
// --verbose lists them all.
func TestRestoreListing(t *testing.T) {
	t.Parallel()
	e := newUndoEnv(t)
	e.write("a.txt", "a\n")
	e.ok("snap")
	for i := range 12 {
		e.write(fmt.Sprintf("pkg/f%02d", i), "x\n")
	}
	e.write("pkg/sub/s", "s\n")
	e.write("one/x", "x\n")
	e.ok("end")
	if r := e.ok("undo", "--dry-run"); r.stdout != "plan (dry run, nothing changed): would undo 1 turn: 0 restored, 17 deleted, 0 brought back\n"+
		"  D one\n  D one/x\n  D pkg/ (13 files)\n" {
		t.Errorf("undo --dry-run:\n%s", r)
	}
	r := e.ok("undo", "--verbose")
	if !strings.Contains(r.stdout, "  D pkg\n  D pkg/f00\n") || !strings.Contains(r.stdout, "  D pkg/sub/s\n") {
		t.Errorf("undo --verbose:\n%s", r)
	}
	r = e.ok("redo")
	if !regexp.MustCompile(`^redid 1 turn: 0 restored, 0 deleted, 17 brought back
  A one
  A one/x
  A pkg/ \(13 files\)
checkpoint [0-9a-f]{12} \(turnback restore [0-9a-f]{12} goes back\)
$`).MatchString(r.stdout) {
		t.Errorf("redo:\n%s", r)
	}
}

// TestLogPartlyUndone: after undo --path, log marks the turn, which
// stays on the undo stack, as partly undone.
func TestLogPartlyUndone(t *testing.T) {
	t.Parallel()
	e := newUndoEnv(t)
	e.write("a.txt", "a\n")
	e.ok("snap")
	e.write("q.txt", "q\n")
	e.write("r.txt", "r\n")
	e.ok("end")
	e.ok("undo", "--path", "q.txt")
	if r := e.ok("log"); !strings.HasSuffix(r.stdout, "  +2 ~0 -0           [partly undone: q.txt]\n") {
		t.Errorf("log after undo --path:\n%s", r)
	}
	var doc struct {
		Turns []struct {
			PartlyUndone []string `json:"partly_undone"`
		} `json:"turns"`
	}
	if e.okJSON(&doc, "log"); len(doc.Turns) != 1 || strings.Join(doc.Turns[0].PartlyUndone, " ") != "q.txt" {
		t.Errorf("log --json: %+v", doc)
	}
}
