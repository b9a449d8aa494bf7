package cli

import (
	"strings"
	"testing"
)

// TestUndoTrackedSplitIndex: the built binary, without and with a watch
// daemon. The repository uses git's split index (core.splitIndex, as
// large repositories set it): .git/index holds only a "link" extension
// and the tracked entries live in .git/sharedindex.<id>. git tracks a
// committed node_modules/x.js and dist/app.js, force-added though
// .gitignore ignores dist/. A turn edits both. What git tracks is always
// captured, so the undo must put both back. A reader of .git/index
// alone finds no entry there and skips both directories: the undo
// would say "nothing to undo" and the agent's edits would stay.
func TestUndoTrackedSplitIndex(t *testing.T) {
	t.Parallel()
	needTools(t, "git")
	g := newSubtestGroup(t)
	for _, env := range []string{"store", "watch"} {
		g.run(env, func(t *testing.T) {
			e := newStoreEnv(t)
			e.write(".gitignore", "dist/\n")
			e.write("top.c", "top\n")
			e.write("node_modules/x.js", "committed js\n")
			e.write("dist/app.js", "committed app\n")
			gitIn(t, e.dir, "init", "-q")
			gitIn(t, e.dir, "config", "core.splitIndex", "true")
			gitIn(t, e.dir, "config", "splitIndex.maxPercentChange", "0")
			gitIn(t, e.dir, "add", ".gitignore", "top.c", "node_modules")
			gitIn(t, e.dir, "add", "-f", "dist/app.js")
			gitIn(t, e.dir, "commit", "-q", "-m", "init")
			if ls := gitIn(t, e.dir, "ls-files"); ls != ".gitignore\ndist/app.js\nnode_modules/x.js\ntop.c\n" {
				t.Fatalf("git ls-files: %q", ls)
			}
			if env == "watch" {
				t.Cleanup(func() { e.run("watch", "--stop") })
				e.ok("watch", "--detach")
			}
			e.ok("snap", "-m", "edit the tracked files")
			e.write("node_modules/x.js", "the agent's js\n")
			e.write("dist/app.js", "the agent's app\n")
			e.ok("end")
			r := e.ok("undo")
			for p, want := range map[string]string{"node_modules/x.js": "committed js\n", "dist/app.js": "committed app\n"} {
				if got := string(e.read(p)); got != want {
					t.Errorf("after undo %s holds %q, want %q", p, got, want)
				}
			}
			if strings.Contains(r.stdout, "nothing to undo") {
				t.Errorf("undo printed:\n%s%s", r.stdout, r.stderr)
			}
		})
	}
	g.wait()
}
