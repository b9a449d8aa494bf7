package cli

import (
	"strings"
	"testing"
)

// TestUndoNegatedInsideSkippedDir: the built binary. .gitignore ignores
// what build/ and node_modules/ hold but keeps build/keep.c and
// node_modules/mylib/ ("build/*", "!build/keep.c", "node_modules/*",
// "!node_modules/mylib/"): the usual way to keep hand-written files
// there. git does not ignore them ("git status" lists both as
// untracked): the patterns match the directories' entries, not the
// directories. build/ holds a CMakeCache.txt and node_modules/ has its
// built-in name, but the user's "!" keeps each: a turn edits both kept
// files, and the undo puts them back.
func TestUndoNegatedInsideSkippedDir(t *testing.T) {
	t.Parallel()
	e := newStoreEnv(t)
	e.write(".gitignore", "build/*\n!build/keep.c\nnode_modules/*\n!node_modules/mylib/\n")
	e.write("main.c", "main\n")
	e.write("build/CMakeCache.txt", "CMAKE_BUILD_TYPE:STRING=Debug\n")
	e.write("build/main.o", "object\n")
	e.write("build/keep.c", "the user's keep.c\n")
	e.write("node_modules/dep/index.js", "installed\n")
	e.write("node_modules/mylib/index.js", "the user's lib\n")
	e.ok("snap", "-m", "edit the kept files")
	e.write("build/keep.c", "the agent's keep.c\n")
	e.write("node_modules/mylib/index.js", "the agent's lib\n")
	e.ok("end")
	r := e.ok("undo")
	for p, want := range map[string]string{"build/keep.c": "the user's keep.c\n", "node_modules/mylib/index.js": "the user's lib\n"} {
		if got := string(e.read(p)); got != want {
			t.Errorf("after undo %s holds %q, want %q", p, got, want)
		}
	}
	if strings.Contains(r.stdout, "nothing to undo") {
		t.Errorf("undo printed:\n%s", r.stdout)
	}
	if got := string(e.read("build/main.o")); got != "object\n" {
		t.Errorf("build/main.o holds %q", got)
	}
}
