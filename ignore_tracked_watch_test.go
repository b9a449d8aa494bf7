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

// TestRestoreDeleteForceAddedWatched: with a watcher, a turn deletes
// a.cfg, build/keep.txt and sub/c.cfg, tracked though ignored; a second
// turn writes other/x only, so its capture takes sub and build from the
// first's, with what the first found tracked there. After both are
// undone, restore of the second's end deletes the three again (and
// brings other/x back).
func TestRestoreDeleteForceAddedWatched(t *testing.T) {
	t.Parallel()
	rt := forcedTree(t)
	rt.write("sub/c.cfg", "c v0")
	rt.write("sub/d", "d")
	runGit(t, rt.dir, "add", "-f", "sub/c.cfg")
	rt.do("watch", rt.repo.Watch(rt.ctx, turnback.WatchOptions{}))
	rt.snap()
	rt.remove("a.cfg", "build/keep.txt", "sub/c.cfg")
	rt.end()
	rt.snap()
	rt.write("other/x", "x")
	end := rt.end()
	_, err := rt.repo.Undo(rt.ctx, 2, turnback.UndoOptions{})
	rt.do("undo", err)
	if rt.read("sub/c.cfg") != "c v0" {
		t.Fatalf("undo: sub/c.cfg holds %q", rt.read("sub/c.cfg"))
	}
	res, err := rt.repo.Restore(rt.ctx, end, turnback.RestoreOptions{})
	rt.do("restore", err)
	rt.wantDeleted(res, "restore", "a.cfg", "build/keep.txt", "sub/c.cfg")
	if rt.read("other/x") != "x" {
		t.Errorf("restore: other/x holds %q", rt.read("other/x"))
	}
}
