package cli

import (
	"bytes"
	"encoding/json"
	"regexp"
	"testing"
)

// TestCheckpointsListPartial: checkpoints marks a partial checkpoint (a
// scoped undo's, with a change on the way to the turn's paths) with the number
// of paths it holds and says what restore of it does; --json gives it
// "partial": {"paths": N}; show says the same. A whole checkpoint (an
// undo's that closed the open turn) has no mark and no "partial".
func TestCheckpointsListPartial(t *testing.T) {
	t.Parallel()
	e := newScopeEnv(t)
	e.setup().ok("snap", "-m", "open turn")
	e.write("c/1.txt", "c by the agent\n")
	e.ok("undo") // closes the open turn: reads everything, a whole checkpoint
	e.setup().ok("snap", "-m", "turn")
	e.write("a/x.txt", "x by the agent\n")
	e.write("a/deep/new.txt", "new by the agent\n")
	e.setup().ok("end")
	e.chmod("a", 0o700) // on the way to the turn's paths, which the undo reads: a new state
	e.ok("undo")

	r := e.ok("checkpoints")
	want := regexp.MustCompile(`^CHECKPOINT    TIME                 SESSION  MADE BY      PATHS
([0-9a-f]{12})  \d{4}-\d\d-\d\d \d\d:\d\d:\d\d  default  undo turn 3  2: a/deep/new.txt, a/x.txt  \[partial: 2 paths\]
([0-9a-f]{12})  \d{4}-\d\d-\d\d \d\d:\d\d:\d\d  default  undo turn 2  1: c/1.txt
turnback restore ([0-9a-f]{12}) brings the folder back to a checkpoint \(itself making one of the state it replaces\)
a partial checkpoint holds only the paths its undo or redo could write: restore of it puts back those alone
$`)
	m := want.FindStringSubmatch(r.stdout)
	if m == nil || m[1] != m[3] {
		t.Fatalf("checkpoints:\n%s\nwant it matching %s", r, want)
	}

	var doc struct {
		Checkpoints []map[string]json.RawMessage `json:"checkpoints"`
	}
	e.okJSON(&doc, "checkpoints")
	if len(doc.Checkpoints) != 2 {
		t.Fatalf("checkpoints --json: %d checkpoints, want 2", len(doc.Checkpoints))
	}
	var compact bytes.Buffer
	_ = json.Compact(&compact, doc.Checkpoints[0]["partial"])
	if got := compact.String(); got != `{"paths":2}` {
		t.Errorf(`checkpoints --json: the scoped undo's "partial" is %s, want {"paths":2}`, got)
	}
	if got, ok := doc.Checkpoints[1]["partial"]; ok {
		t.Errorf(`checkpoints --json: the whole checkpoint has "partial": %s`, got)
	}

	// show says so too.
	showLine := "partial: restore of it puts back only the 2 paths it holds; the others listed are an earlier capture's\n"
	if r := e.ok("show", m[1]); !regexp.MustCompile(`^snapshot [0-9a-f]{64}\n\d+ files, \d+ B\n` + regexp.QuoteMeta(showLine) + "\n").MatchString(r.stdout) {
		t.Errorf("show of the partial checkpoint: want its third line %q\n%s", showLine, r)
	}
	if r := e.ok("show", m[2]); regexp.MustCompile(`(?m)^partial`).MatchString(r.stdout) {
		t.Errorf("show of the whole checkpoint says partial:\n%s", r)
	}
	var shown map[string]json.RawMessage
	e.okJSON(&shown, "show", m[1])
	compact.Reset()
	_ = json.Compact(&compact, shown["partial"])
	if got := compact.String(); got != `{"paths":2}` {
		t.Errorf(`show --json of the partial checkpoint: "partial" is %s, want {"paths":2}`, got)
	}
	shown = nil
	e.okJSON(&shown, "show", m[2])
	if got, ok := shown["partial"]; ok {
		t.Errorf(`show --json of the whole checkpoint has "partial": %s`, got)
	}

	// The listing agrees with restore.
	var res scopeRestoreDoc
	e.okJSON(&res, "restore", "--dry-run", m[1])
	if res.Partial == nil || len(res.Partial.Paths) != 2 {
		t.Errorf("restore --dry-run of the partial checkpoint: partial %+v, want 2 paths", res.Partial)
	}
	var whole scopeRestoreDoc
	e.okJSON(&whole, "restore", "--dry-run", m[2])
	if whole.Partial != nil {
		t.Errorf("restore --dry-run of the whole checkpoint: partial %+v", whole.Partial)
	}
}
