package cli

import (
	"os"
	"strings"
	"testing"
)

// TestOverlapUndoCLIReport: in the terminal, an undo that another
// session's overlapping turn stops names that turn in its header and
// offers only --force (a merge would meet the same turn). Nothing
// changes.
func TestOverlapUndoCLIReport(t *testing.T) {
	t.Parallel()
	e := newStoreEnv(t)
	e.write("f.txt", "a\nb\nc\nd\ne\nf\ng\n")
	e.ok("snap")
	e.ok("--session", "A", "snap")
	e.write("f.txt", "A\nb\nc\nd\ne\nf\ng\n")
	e.ok("--session", "B", "snap")
	e.write("f.txt", "A\nb\nc\nd\ne\nf\nG\n")
	e.ok("--session", "B", "end")
	e.ok("--session", "A", "end")
	r := e.expect(3, "--session", "A", "undo")
	want := "turnback: conflict: undo changed nothing: 1 path was also changed by another session's turn that ran at the same time:\n" +
		"  f.txt: also changed by turn 1 of session B, which ran at the same time\n" +
		"Keep the edits, or run one of:\n"
	if !strings.HasPrefix(r.stderr, want) || strings.Contains(r.stderr, "--merge") || !strings.Contains(r.stderr, "undo --force") {
		t.Fatalf("undo's report:\n%s\nwant it to start with\n%s\nand offer --force alone", r.stderr, want)
	}
	if got, err := os.ReadFile(e.path("f.txt")); err != nil || string(got) != "A\nb\nc\nd\ne\nf\nG\n" {
		t.Fatalf("the refused undo changed f.txt: %q, %v", got, err)
	}
}
