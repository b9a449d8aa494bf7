package cli

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// TestLargeNewDirWarned (issue #36 item 7): a turn that makes a new
// directory of 200 or more files is not silently uncaptured: end warns
// with its name, count and what to do, --json marks it "new", log marks
// the turn, and the undo that leaves it says how to remove it. The
// snaps after it do not warn again.
func TestLargeNewDirWarned(t *testing.T) {
	t.Parallel()
	e := newUndoEnv(t)
	e.write("src.txt", "v1\n")
	e.ok("snap")
	e.write("src.txt", "v2\n")
	for i := range 250 {
		e.write(fmt.Sprintf("assets/%03d.txt", i), "x\n")
	}
	r := e.ok("end")
	want := "turnback: warning: assets/ is a new directory with 250 files: not captured (TURNBACK_LARGE_DIR_FILES), so undo can neither remove nor bring it back\n" +
		"turnback: if a turn made it by mistake, delete it yourself (rm -r assets); to capture new directories this large, raise TURNBACK_LARGE_DIR_FILES (it stays uncaptured while it exists); if it is generated, list it in .turnbackignore\n"
	if !strings.HasPrefix(r.stderr, want) {
		t.Errorf("end: want stderr starting\n%s\n%s", want, r)
	}
	if r := e.ok("snap"); strings.Contains(r.stderr, "assets/") {
		t.Errorf("the next snap warns again:\n%s", r)
	}
	e.ok("end")
	if r := e.ok("log"); !strings.Contains(r.stdout, "[made 1 new directory not captured, not undoable: assets/]\n") {
		t.Errorf("log does not mark the turn:\n%s", r)
	}
	var doc struct {
		Turns []struct {
			Unprotected []string `json:"unprotected"`
		} `json:"turns"`
	}
	if e.okJSON(&doc, "log"); len(doc.Turns) != 1 || len(doc.Turns[0].Unprotected) != 1 || doc.Turns[0].Unprotected[0] != "assets/" {
		t.Errorf("log --json: %+v", doc)
	}
	r = e.expect(exitIncomplete, "undo")
	if !strings.Contains(r.stdout, "  not restored: assets (an uncaptured directory is in the way)\n"+
		"  assets/ was never captured (a new directory of TURNBACK_LARGE_DIR_FILES files or more), so it stays: if the turn made it, delete it yourself (rm -r assets)\n") {
		t.Errorf("undo:\n%s", r)
	}
}

// TestLargeNewDirJSON: snap --json lists a directory it first leaves
// uncaptured with "new": true.
func TestLargeNewDirJSON(t *testing.T) {
	t.Parallel()
	e := newUndoEnv(t)
	e.write("src.txt", "v1\n")
	e.ok("snap")
	e.ok("end")
	for i := range 200 {
		e.write(fmt.Sprintf("gen/%03d.txt", i), "x\n")
	}
	r := e.ok("--json", "snap")
	var doc struct {
		Stats struct {
			Uncaptured []struct {
				Path  string `json:"path"`
				Kind  string `json:"kind"`
				Files int    `json:"files"`
				New   bool   `json:"new"`
			} `json:"uncaptured"`
		} `json:"stats"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil || len(doc.Stats.Uncaptured) != 1 {
		t.Fatalf("%v\n%s", err, r)
	}
	if u := doc.Stats.Uncaptured[0]; u.Path != "gen" || u.Kind != "dir" || u.Files != 200 || !u.New {
		t.Errorf("snap --json: %+v", u)
	}
}
