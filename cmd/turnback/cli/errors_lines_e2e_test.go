package cli

// Issue 30 item 9: an error message of several lines is printed as
// lines, never with a literal \n; what comes from the folder stays
// escaped.

import (
	"strings"
	"testing"
)

// TestE2EErrorLines: an undo that stops part way prints its error and
// the next step on two lines of stderr (the --json document carries
// the same text); a file name with a newline in an error stays escaped.
func TestE2EErrorLines(t *testing.T) {
	t.Parallel()
	e := newCLI(t, "work")
	e.write("a.txt", "one\n")
	e.ok("snap")
	e.write("a.txt", "two\n")
	e.ok("end")
	const next = "turnback: fix the cause, then run \"turnback recover\" (any command tries again) to finish it, " +
		"or \"turnback recover --rollback\" to put back the state before it\n"
	const first = "turnback: an undo, redo or restore stopped part way and is not finished: restore: restore "
	e.extra = []string{"TURNBACK_TEST_FAIL_AT=3"} // the step that places a.txt, after the journal
	r := e.expect(1, "undo")
	lines := strings.SplitAfter(r.stderr, "\n")
	if len(lines) != 3 || lines[2] != "" || !strings.HasPrefix(lines[0], first) ||
		!strings.HasSuffix(lines[0], " stopped part way: restore: place a.txt: no space left on device\n") || lines[1] != next {
		t.Errorf("stderr is not the error and the next step on two lines:\n%q", r.stderr)
	}
	r = e.expect(1, "--json", "redo") // the unfinished undo, said again
	doc, err := oneJSONObject(r.stdout)
	if msg, _ := doc["error"].(string); err != nil || !strings.HasSuffix(msg, "\n"+strings.TrimSuffix(next, "\n")) || strings.Contains(msg, `\n`) {
		t.Errorf("--json: %v %v", doc, err)
	}
	if strings.Contains(r.stderr, `\n`) || !strings.HasSuffix(r.stderr, next) {
		t.Errorf("--json stderr:\n%q", r.stderr)
	}
	e.extra = nil
	e.ok("recover")

	// A name with a newline in the error: escaped, on the first line.
	e.ok("snap")
	e.write("x\ny.txt", "made\n")
	e.write("a.txt", "three\n")
	e.ok("end")
	e.extra = []string{"TURNBACK_TEST_FAIL_AT=3"}
	r = e.expect(1, "undo")
	lines = strings.SplitAfter(r.stderr, "\n")
	if len(lines) != 3 || !strings.Contains(lines[0], `x\ny.txt`) || lines[1] != next {
		t.Errorf("stderr with a name holding a newline:\n%q", r.stderr)
	}
	e.extra = nil
	e.ok("recover")
}
