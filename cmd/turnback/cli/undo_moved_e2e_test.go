package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestUndoRedoMovedJSON: undo and redo --json list the turns they moved
// in "moved" ({"turn", "message", "meta"}, oldest first), also a dry run
// (the turns it would move) and a partial undo; restore and a conflict
// list none. The documents are compared byte for byte with
// testdata/undo/moved.golden (ids masked; -update rewrites it).
func TestUndoRedoMovedJSON(t *testing.T) {
	e := newCLI(t, "work")
	e.write("a.txt", "one\n")
	e.ok("snap", "-m", "add b", "--meta", "message_index=0")
	e.write("a.txt", "two\n")
	e.write("b.txt", "b\n")
	e.ok("end")
	e.ok("snap", "-m", "add c", "--meta", "message_index=2", "--meta", "prompt_id=p-2")
	e.write("c.txt", "c\n")
	e.ok("end")
	after := e.tree()

	ids := regexp.MustCompile(`\b[0-9a-f]{12,64}\b`)
	got := ""
	run := func(code int, args ...string) {
		t.Helper()
		r := e.expect(code, append([]string{"--json"}, args...)...)
		if args[len(args)-1] != "--dry-run" {
			parseRestoreDoc(t, r, code != 0) // the contract's keys, and only those
		}
		got += "$ turnback --json " + strings.Join(args, " ") + "\n" + ids.ReplaceAllString(r.stdout, "ID") + "\n"
	}
	run(0, "undo", "2", "--dry-run")
	e.same("after the dry run", after)
	run(0, "undo", "2")
	run(0, "redo", "2", "--dry-run")
	run(0, "redo", "1")
	run(0, "redo")
	e.same("after undo 2 and two redos", after)
	run(0, "undo", "--path", "c.txt")
	run(0, "redo")
	e.write("c.txt", "edited\n")
	run(3, "undo")
	run(0, "restore", "@1")

	golden := filepath.Join("..", "testdata", "undo", "moved.golden")
	if *updateGolden {
		cliWriteFile(t, golden, []byte(got))
	}
	want, err := os.ReadFile(golden)
	if err != nil || got != string(want) {
		t.Errorf("undo/redo --json differ from %s (-update rewrites it; %v):\n%s", golden, err, got)
	}
}
