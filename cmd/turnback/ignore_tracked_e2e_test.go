package main

import (
	"slices"
	"strings"
	"testing"
)

// TestUndoForceAddedFiles: the built binary. .gitignore ignores *.cfg
// and build/; git tracks a.cfg and build/keep.txt (git add -f). A turn
// edits both, and build/other.o, untracked. The undo puts the tracked
// files back byte for byte, exit 0, and leaves build/other.o, ignored,
// as it is; status --ignored names what stays skipped.
func TestUndoForceAddedFiles(t *testing.T) {
	t.Parallel()
	needTools(t, "git")
	e := newStoreEnv(t)
	e.write(".gitignore", "*.cfg\nbuild/\n")
	e.write("a.cfg", "tracked\x00 v0\n")
	e.write("b.cfg", "untracked\n")
	e.write("build/keep.txt", "keep v0\n")
	e.write("build/other.o", "the user's object\n")
	gitIn(t, e.dir, "init", "-q")
	gitIn(t, e.dir, "add", "-f", "a.cfg", "build/keep.txt")
	e.ok("snap", "-m", "edit the config")
	e.write("a.cfg", "the agent's\n")
	e.write("build/keep.txt", "the agent's keep\n")
	e.write("build/other.o", "the agent's object\n")
	e.ok("end")
	doc := e.jsonOK("undo")
	if !slices.Equal(doc.Restored, []string{"a.cfg", "build/keep.txt"}) || len(doc.NotRestorable) != 0 {
		t.Fatalf("undo: %+v", doc)
	}
	for p, want := range map[string]string{"a.cfg": "tracked\x00 v0\n", "build/keep.txt": "keep v0\n",
		"build/other.o": "the agent's object\n", "b.cfg": "untracked\n"} {
		if got := string(e.read(p)); got != want {
			t.Errorf("after undo %s holds %q, want %q", p, got, want)
		}
	}
	r := e.ok("status", "--ignored")
	want := "I b.cfg  ignored by .gitignore line 1: *.cfg\n" +
		"I build/other.o  ignored by .gitignore line 2: build/\n"
	if !strings.HasSuffix(r.stdout, want) || strings.Contains(r.stdout, "a.cfg") || strings.Contains(r.stdout, "keep.txt") {
		t.Errorf("status --ignored:\n%s\nwant it to end with\n%s", r.stdout, want)
	}
}
