package cli

import (
	"strings"
	"testing"

	"github.com/turnback/turnback/manifest/treetest"
)

// TestUndoKeepsUnignoredFiles: a turn that rewrites .gitignore so that
// files ignored before are no longer ignored must not make its undo (or
// a restore of the before-state) delete those files: a path ignored in
// either state is left as it is, and listed.
func TestUndoKeepsUnignoredFiles(t *testing.T) {
	t.Parallel()
	g := newSubtestGroup(t)
	for _, how := range []string{"undo", "restore"} {
		g.run(how, func(t *testing.T) {
			e := newUndoEnv(t)
			e.write(".gitignore", "secrets.txt\nlocal/\n")
			e.write("secrets.txt", "TOKEN=hunter2\n")
			e.mkdir("local")
			e.write("local/notes.md", "my notes\n")
			e.write("a.txt", "a1\n")
			before := e.snapID("snap")
			e.write(".gitignore", "*.tmp\n")
			e.write("a.txt", "a2\n")
			e.write("x.tmp", "scratch\n")
			e.ok("end")
			want := e.tree().With(treetest.Tree{".gitignore": treetest.File("secrets.txt\nlocal/\n", 0o644), "a.txt": treetest.File("a1\n", 0o644)}).Without("x.tmp")
			var r cliResult
			if how == "undo" {
				r = e.ok("undo")
			} else {
				r = e.ok("restore", before[:12])
			}
			// x.tmp is ignored in the state after the turn (the one the
			// command starts from): never seen, kept.
			want = want.With(treetest.Tree{"x.tmp": treetest.File("scratch\n", 0o644)})
			e.same("after "+how, want)
			for _, p := range []string{"secrets.txt", "local/notes.md"} {
				if !strings.Contains(r.stdout, "not restored: "+p+" (ignored in the state") {
					t.Errorf("%s is not listed as left because it is ignored:\n%v", p, r)
				}
			}
		})
	}
	g.wait()
}
