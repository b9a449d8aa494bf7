package cli

import (
	"fmt"
	"testing"
)

// TestUndoRulesLargeDirCLI (review43): the built binary. A turn deletes
// data/ (250 files) and adds "data/" to .gitignore; undo brings data/
// back. The next turn deletes data/ again; its undo must bring it back
// too (exit 0, every file byte for byte). The first undo's recaptured
// result records data/ uncaptured (a new large directory, judged
// against the state before the undo), so the second undo exits 5:
// "data: its content was never captured", though the store holds
// every file.
func TestUndoRulesLargeDirCLI(t *testing.T) {
	t.Parallel()
	e := newStoreEnv(t)
	e.write(".gitignore", "*.log\n")
	e.write("main.go", "package main\n")
	for i := range 250 {
		e.write(fmt.Sprintf("data/row%03d.csv", i), fmt.Sprintf("%d,%d\n", i, i*i))
	}
	ip := e.setup() // the turns are the setting; the undos are the check
	ip.ok("snap", "-m", "tidy up")
	e.rm("data")
	e.write(".gitignore", "*.log\ndata/\n")
	ip.ok("end")
	e.ok("undo")
	if got := string(e.read("data/row007.csv")); got != "7,49\n" {
		t.Fatalf("after the first undo, data/row007.csv holds %q", got)
	}
	ip.ok("snap", "-m", "clean again")
	e.rm("data")
	ip.ok("end")
	r := e.run("undo")
	if r.code != 0 {
		t.Fatalf("undo of the turn that deleted data/ again: %v", r)
	}
	for i := range 250 {
		p := fmt.Sprintf("data/row%03d.csv", i)
		if got, want := string(e.read(p)), fmt.Sprintf("%d,%d\n", i, i*i); got != want {
			t.Fatalf("after the second undo, %s holds %q, want %q", p, got, want)
		}
	}
}
