package turnback_test

// A directory of a built-in name (node_modules, __pycache__, ...) or
// one a marker shows generated (CACHEDIR.TAG) is captured when git
// tracks paths in it. A turn that deletes it, or a tracked file in it,
// is redone whole.

import (
	"os"
	"slices"
	"testing"

	"github.com/turnback/turnback"
)

// TestRedoDeletesTrackedNamed: git tracks the files of a directory the
// walker skips by its name, or by a marker, when git tracks nothing in
// it. The turn deletes the directory (or a file in it, or one holding
// it); the undo brings the files back byte for byte, the redo deletes
// them again and says so, and so does restore of the turn's end after
// another undo. The state the redo goes to lacks the directory: its
// record says git tracked paths in it (tracked_ignored), so it was
// absent, not ignored.
func TestRedoDeletesTrackedNamed(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name   string
		files  map[string]string // all tracked
		remove string            // by the turn, with all it holds
		del    []string          // what the redo deletes
	}{
		{"node_modules", map[string]string{"node_modules/x.js": "x\x00", "node_modules/s/y.js": "y"},
			"node_modules", []string{"node_modules", "node_modules/s", "node_modules/s/y.js", "node_modules/x.js"}},
		{"__pycache__", map[string]string{"src/m.py": "m", "src/__pycache__/m.pyc": "c"},
			"src/__pycache__", []string{"src/__pycache__", "src/__pycache__/m.pyc"}},
		{"in a directory deleted", map[string]string{"web/a.js": "a", "web/node_modules/w.js": "w"},
			"web", []string{"web", "web/a.js", "web/node_modules", "web/node_modules/w.js"}},
		{"in one there", map[string]string{"node_modules/p/i.js": "i", "node_modules/p/node_modules/z.js": "z"},
			"node_modules/p/node_modules", []string{"node_modules/p/node_modules", "node_modules/p/node_modules/z.js"}},
		{"a file of one", map[string]string{"node_modules/x.js": "x", "node_modules/k.js": "k"},
			"node_modules/x.js", []string{"node_modules/x.js"}},
		{"the only file of one", map[string]string{"node_modules/x.js": "x"},
			"node_modules/x.js", []string{"node_modules/x.js"}},
		{"marked", map[string]string{"build/CACHEDIR.TAG": cacheDirTag, "build/a.txt": "b"},
			"build", []string{"build", "build/CACHEDIR.TAG", "build/a.txt"}},
		{"a file of one marked", map[string]string{"venv/pyvenv.cfg": "v", "venv/a.txt": "b"},
			"venv/a.txt", []string{"venv/a.txt"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			rt := newRegressTree(t)
			rt.write("top.c", "top")
			for p, data := range c.files {
				rt.write(p, data)
			}
			runGit(t, rt.dir, "init", "-q")
			runGit(t, rt.dir, "add", ".")
			rt.snap()
			if err := os.RemoveAll(rt.path(c.remove)); err != nil {
				t.Fatal(err)
			}
			end := rt.end()
			res, err := rt.repo.Undo(rt.ctx, 1, turnback.UndoOptions{})
			rt.do("undo", err)
			for p, data := range c.files {
				if got := rt.read(p); got != data {
					t.Fatalf("undo: %s holds %q, want %q (%+v)", p, got, data, res)
				}
			}
			res, err = rt.repo.Redo(rt.ctx, 1, turnback.RedoOptions{})
			rt.do("redo", err)
			rt.wantGone(res, "redo", c.remove, c.del)
			_, err = rt.repo.Undo(rt.ctx, 1, turnback.UndoOptions{})
			rt.do("undo", err)
			res, err = rt.repo.Restore(rt.ctx, end, turnback.RestoreOptions{})
			rt.do("restore", err)
			rt.wantGone(res, "restore", c.remove, c.del)
		})
	}
}

// wantGone checks that the command (what) deleted exactly del, ending
// with p, and left top.c as it was.
func (rt *regressTree) wantGone(res *turnback.RestoreResult, what, p string, del []string) {
	rt.t.Helper()
	if _, err := os.Lstat(rt.path(p)); !os.IsNotExist(err) {
		rt.t.Errorf("%s: %s still there (%v)", what, p, err)
	}
	if !slices.Equal(res.Deleted, del) || len(res.NotRestorable) != 0 || rt.read("top.c") != "top" {
		rt.t.Errorf("%s: deleted %q, want %q; top.c %q (%+v)", what, res.Deleted, del, rt.read("top.c"), res)
	}
}

// TestRedoTrackedNamedKeepsNew: the turn deletes node_modules, where
// git tracks x.js. After the undo the user adds node_modules/new.js.
// The redo deletes x.js and leaves new.js, which the turn never saw,
// and so node_modules.
func TestRedoTrackedNamedKeepsNew(t *testing.T) {
	t.Parallel()
	rt := newRegressTree(t)
	rt.write("top.c", "top")
	rt.write("node_modules/x.js", "x")
	runGit(t, rt.dir, "init", "-q")
	runGit(t, rt.dir, "add", ".")
	rt.snap()
	if err := os.RemoveAll(rt.path("node_modules")); err != nil {
		t.Fatal(err)
	}
	rt.end()
	_, err := rt.repo.Undo(rt.ctx, 1, turnback.UndoOptions{})
	rt.do("undo", err)
	rt.write("node_modules/new.js", "the user's")
	res, err := rt.repo.Redo(rt.ctx, 1, turnback.RedoOptions{})
	rt.do("redo", err)
	if _, err := os.Lstat(rt.path("node_modules/x.js")); !os.IsNotExist(err) || rt.read("node_modules/new.js") != "the user's" ||
		!slices.Equal(res.Deleted, []string{"node_modules/x.js"}) {
		t.Errorf("redo: x.js %v, new.js %q (%+v)", err, rt.read("node_modules/new.js"), res)
	}
}

// TestRestoreNamedOnlyTracked: at state S, git tracked
// web/node_modules/w.js, deleted with its directory (S's record lists
// it), and node_modules/u.js was there untracked, so ignored (S lacks
// it, and lists it not). Then w.js comes back and u.js is added to
// git. Restoring S deletes w.js and leaves u.js: the list speaks only
// for what git tracked at S.
func TestRestoreNamedOnlyTracked(t *testing.T) {
	t.Parallel()
	rt := newRegressTree(t)
	rt.write("web/a.js", "a")
	rt.write("web/node_modules/w.js", "tracked")
	rt.write("node_modules/u.js", "the user's")
	runGit(t, rt.dir, "init", "-q")
	runGit(t, rt.dir, "add", "web")
	if err := os.RemoveAll(rt.path("web/node_modules")); err != nil {
		t.Fatal(err)
	}
	id := rt.snap()
	rt.write("web/node_modules/w.js", "tracked, back")
	runGit(t, rt.dir, "add", "node_modules/u.js")
	rt.write("web/a.js", "the agent's a")
	rt.end()
	res, err := rt.repo.Restore(rt.ctx, id, turnback.RestoreOptions{})
	rt.do("restore", err)
	if _, err := os.Lstat(rt.path("web/node_modules")); !os.IsNotExist(err) || rt.read("node_modules/u.js") != "the user's" ||
		rt.read("web/a.js") != "a" {
		t.Fatalf("restore: web/node_modules %v, node_modules/u.js %q, web/a.js %q (%+v)", err, rt.read("node_modules/u.js"), rt.read("web/a.js"), res)
	}
}
