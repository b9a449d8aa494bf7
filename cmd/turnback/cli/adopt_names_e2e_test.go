package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAdoptHostileNames: a folder whose name ends in a space or a
// newline keeps its history from one command to the next, and adopt
// takes it over after a rename, by the old name exactly. Before, the
// worktree note was read with its spaces trimmed: every command after
// the first refused the store as another folder's.
func TestAdoptHostileNames(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"ends in space ", "ends in newline\n", "-dash \xff\tname"} {
		e := newCLI(t, name)
		e.write("a.txt", "a\n")
		e.ok("snap")
		e.write("a.txt", "b\n")
		e.ok("end")
		if r := e.ok("log"); !strings.Contains(r.stdout, "+0 ~1 -0") {
			t.Errorf("%q: log before the rename:\n%v", name, r)
		}
		old := e.dir
		e.dir = filepath.Join(e.base, "renamed")
		if err := os.Rename(old, e.dir); err != nil {
			t.Fatal(err)
		}
		e.ok("adopt", old)
		if r := e.ok("log"); !strings.Contains(r.stdout, "+0 ~1 -0") {
			t.Errorf("%q: log after adopt:\n%v", name, r)
		}
	}
}
