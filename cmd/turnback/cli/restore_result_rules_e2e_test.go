package cli

import (
	"encoding/json"
	"testing"
)

// TestUndoResultUnignoredCLI: the built binary. A turn deletes
// notes.txt and adds a rule for it; the user makes notes.txt again
// (ignored then). The undo puts .gitignore back and leaves the user's
// notes.txt, not ignored any more. The state the undo left (status's
// base) must hold it: status lists no change, and restoring that state
// keeps notes.txt byte for byte.
func TestUndoResultUnignoredCLI(t *testing.T) {
	t.Parallel()
	e := newStoreEnv(t)
	e.write(".gitignore", "*.log\n")
	e.write("notes.txt", "kept notes\n")
	e.write("src/main.go", "package main\n")
	e.ok("snap", "-m", "tidy")
	e.rm("notes.txt")
	e.write(".gitignore", "*.log\nnotes.txt\n")
	e.ok("end")
	e.write("notes.txt", "the user's, ignored\n")
	e.ok("undo")
	var st struct {
		Base    string
		Changes []json.RawMessage
	}
	e.okJSON(&st, "status")
	if len(st.Changes) != 0 {
		t.Errorf("status after the undo lists changes: %s", st.Changes)
	}
	r := e.ok("restore", st.Base)
	if got := string(e.read("notes.txt")); got != "the user's, ignored\n" {
		t.Fatalf("after restore of the undo's state %s, notes.txt holds %q\n%s%s", st.Base, got, r.stdout, r.stderr)
	}
	if got := string(e.read(".gitignore")); got != "*.log\n" {
		t.Fatalf(".gitignore holds %q", got)
	}
}
