package cli

// Short commands leave the store's Badger tables few: each undo or redo
// flushes one level-0 table at its end, and the command that brings
// level 0 to four merges them (cas/level0.go).

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// TestUndoRedoKeepTablesFew: twenty undos and redos in a row, each its
// own command opening and closing the store (in-process: the tables are
// the point, not the binary), leave at most four tables (three in
// level 0, one below); the store verifies and the tree is the turn's
// after-state. Without the merge at Close they leave ten or more.
func TestUndoRedoKeepTablesFew(t *testing.T) {
	e := newStoreEnv(t)
	for d := range 40 {
		for f := range 30 {
			e.write(fmt.Sprintf("d%02d/f%02d.txt", d, f), strings.Repeat(fmt.Sprintf("dir %d file %d\n", d, f), 20))
		}
	}
	ip := e.setup()
	ip.ok("snap")
	for d := range 6 {
		e.write(fmt.Sprintf("d%02d/f00.txt", d*7), "changed\n")
	}
	e.write("d39/new.txt", "new\n")
	ip.ok("end")
	for range 10 {
		ip.ok("undo")
		ip.ok("redo")
	}
	ssts, err := filepath.Glob(filepath.Join(e.store, "db", "*.sst"))
	if err != nil {
		t.Fatal(err)
	}
	if len(ssts) > 4 {
		t.Errorf("the store holds %d tables, want at most 4: %v", len(ssts), ssts)
	}
	e.verify()
	for d := range 6 {
		if got := string(e.read(fmt.Sprintf("d%02d/f00.txt", d*7))); got != "changed\n" {
			t.Errorf("d%02d/f00.txt holds %q after the last redo", d*7, got)
		}
	}
	if got := string(e.read("d39/new.txt")); got != "new\n" {
		t.Errorf("d39/new.txt holds %q after the last redo", got)
	}
}
