//go:build linux

package turnback_test

import (
	"testing"

	"github.com/turnback/turnback"
)

// TestForceAddedIgnoredWatched: with a watcher, whose captures take
// unchanged directories from the one before, a turn that edits only
// files git tracks though .gitignore ignores them (a.cfg at the top,
// sub/c.cfg, build/keep.txt in an ignored directory) is undone, and
// redone. The watcher must report their events.
func TestForceAddedIgnoredWatched(t *testing.T) {
	t.Parallel()
	rt := forcedTree(t)
	rt.write("sub/c.cfg", "c v0")
	rt.write("sub/d", "d")
	runGit(t, rt.dir, "add", "-f", "sub/c.cfg")
	rt.do("watch", rt.repo.Watch(rt.ctx, turnback.WatchOptions{}))
	rt.snap()
	rt.write("a.cfg", "the agent's")
	rt.write("sub/c.cfg", "the agent's c")
	rt.write("build/keep.txt", "the agent's keep")
	rt.write("build/other.o", "the agent's object")
	rt.end()
	res, err := rt.repo.Undo(rt.ctx, 1, turnback.UndoOptions{})
	rt.do("undo", err)
	want := map[string]string{"a.cfg": "tracked v0", "sub/c.cfg": "c v0", "build/keep.txt": "keep v0", "build/other.o": "the agent's object"}
	for p, w := range want {
		if got := rt.read(p); got != w {
			t.Errorf("undo: %s holds %q, want %q (%+v)", p, got, w, res)
		}
	}
	res, err = rt.repo.Redo(rt.ctx, 1, turnback.RedoOptions{})
	rt.do("redo", err)
	want = map[string]string{"a.cfg": "the agent's", "sub/c.cfg": "the agent's c", "build/keep.txt": "the agent's keep", "build/other.o": "the agent's object"}
	for p, w := range want {
		if got := rt.read(p); got != w {
			t.Errorf("redo: %s holds %q, want %q (%+v)", p, got, w, res)
		}
	}
}
