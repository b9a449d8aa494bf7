package cli

import (
	"os"
	"slices"
	"strings"
	"testing"
)

// TestUndoForceAddedFiles: the built binary. .gitignore ignores *.cfg
// and build/; git tracks a.cfg and build/keep.txt (git add -f). A turn
// edits both, and build/other.o, untracked. The undo puts the tracked
// files back byte for byte, exit 0, and leaves build/other.o, ignored,
// as it is; status --ignored names what stays skipped.
func TestUndoForceAddedFiles(t *testing.T) {
	t.Parallel()
	needTools(t, "git")
	e := newStoreEnv(t)
	e.write(".gitignore", "*.cfg\nbuild/\n")
	e.write("a.cfg", "tracked\x00 v0\n")
	e.write("b.cfg", "untracked\n")
	e.write("build/keep.txt", "keep v0\n")
	e.write("build/other.o", "the user's object\n")
	gitIn(t, e.dir, "init", "-q")
	gitIn(t, e.dir, "add", "-f", "a.cfg", "build/keep.txt")
	e.ok("snap", "-m", "edit the config")
	e.write("a.cfg", "the agent's\n")
	e.write("build/keep.txt", "the agent's keep\n")
	e.write("build/other.o", "the agent's object\n")
	e.ok("end")
	doc := e.jsonOK("undo")
	if !slices.Equal(doc.Restored, []string{"a.cfg", "build/keep.txt"}) || len(doc.NotRestorable) != 0 {
		t.Fatalf("undo: %+v", doc)
	}
	for p, want := range map[string]string{"a.cfg": "tracked\x00 v0\n", "build/keep.txt": "keep v0\n",
		"build/other.o": "the agent's object\n", "b.cfg": "untracked\n"} {
		if got := string(e.read(p)); got != want {
			t.Errorf("after undo %s holds %q, want %q", p, got, want)
		}
	}
	r := e.ok("status", "--ignored")
	want := "I b.cfg  ignored by .gitignore line 1: *.cfg\n" +
		"I build/other.o  ignored by .gitignore line 2: build/\n"
	if !strings.HasSuffix(r.stdout, want) || strings.Contains(r.stdout, "a.cfg") || strings.Contains(r.stdout, "keep.txt") {
		t.Errorf("status --ignored:\n%s\nwant it to end with\n%s", r.stdout, want)
	}
}

// TestRedoDeletesForceAdded: the built binary, without and with a watch
// daemon (whose captures read only what changed). A turn deletes a.cfg and build/keep.txt, which git tracks
// though .gitignore ignores them (the index keeps them). The undo
// brings them back, the redo deletes them again and says so, exit 0,
// and leaves build/other.o, ignored and untracked, as it is; so does
// restore of the turn's end after another undo.
func TestRedoDeletesForceAdded(t *testing.T) {
	t.Parallel()
	needTools(t, "git")
	g := newSubtestGroup(t)
	for _, env := range []string{"store", "watch"} {
		g.run(env, func(t *testing.T) {
			e := newStoreEnv(t)
			e.write(".gitignore", "*.cfg\nbuild/\n")
			e.write("a.cfg", "tracked v0\n")
			e.write("build/keep.txt", "keep v0\n")
			e.write("build/other.o", "the user's object\n")
			gitIn(t, e.dir, "init", "-q")
			gitIn(t, e.dir, "add", "-f", "a.cfg", "build/keep.txt")
			if env == "watch" {
				t.Cleanup(func() { e.run("watch", "--stop") })
				e.ok("watch", "--detach")
			}
			ip := forcedSetup(e, env)
			ip.ok("snap", "-m", "delete the config")
			e.rm("a.cfg")
			e.rm("build/keep.txt")
			end := ip.snapID("end")
			if doc := e.jsonOK("undo"); !slices.Equal(doc.Created, []string{"a.cfg", "build/keep.txt"}) {
				t.Fatalf("undo: %+v", doc)
			}
			r := e.ok("redo")
			if !strings.HasPrefix(r.stdout, "redid 1 turn: 0 restored, 2 deleted, 0 brought back\n  D a.cfg\n  D build/keep.txt\n") ||
				strings.Contains(r.stdout, "not restored") {
				t.Errorf("redo printed:\n%s", r.stdout)
			}
			e.gone(t, "redo")
			if env == "watch" && !strings.Contains(e.ok("info").stdout, "watched:    by pid") {
				t.Error("no daemon watches the folder")
			}
			e.ok("undo")
			doc := e.jsonOK("restore", end[:12])
			if !slices.Equal(doc.Deleted, []string{"a.cfg", "build/keep.txt"}) || len(doc.NotRestorable) != 0 {
				t.Errorf("restore: %+v", doc)
			}
			e.gone(t, "restore")
		})
	}
	g.wait()
}

// TestRedoDeletesTrackedNodeModules: the built binary, without and
// with a watch daemon. git tracks node_modules/x.js, so node_modules
// is captured though its name alone would skip it. A turn deletes
// node_modules; the undo brings x.js back byte for byte, the redo
// deletes it again and says so, exit 0. lib/node_modules, untracked,
// stays skipped and as it is throughout.
func TestRedoDeletesTrackedNodeModules(t *testing.T) {
	t.Parallel()
	needTools(t, "git")
	g := newSubtestGroup(t)
	for _, env := range []string{"store", "watch"} {
		g.run(env, func(t *testing.T) {
			e := newStoreEnv(t)
			e.write("top.c", "top\n")
			e.write("node_modules/x.js", "committed\x00 js\n")
			e.write("lib/node_modules/u.js", "the user's\n")
			gitIn(t, e.dir, "init", "-q")
			gitIn(t, e.dir, "add", "top.c", "node_modules")
			if env == "watch" {
				t.Cleanup(func() { e.run("watch", "--stop") })
				e.ok("watch", "--detach")
			}
			ip := forcedSetup(e, env)
			ip.ok("snap", "-m", "reinstall")
			e.rm("node_modules")
			ip.ok("end")
			if r := e.ok("undo"); !strings.HasPrefix(r.stdout, "undid 1 turn: 0 restored, 0 deleted, 2 brought back\n  A node_modules\n  A node_modules/x.js\n") {
				t.Fatalf("undo printed:\n%s", r.stdout)
			}
			if got := string(e.read("node_modules/x.js")); got != "committed\x00 js\n" {
				t.Fatalf("after undo node_modules/x.js holds %q", got)
			}
			r := e.ok("redo")
			if !strings.HasPrefix(r.stdout, "redid 1 turn: 0 restored, 2 deleted, 0 brought back\n  D node_modules\n  D node_modules/x.js\n") ||
				strings.Contains(r.stdout, "not restored") || strings.Contains(r.stdout, "left as is") {
				t.Errorf("redo printed:\n%s", r.stdout)
			}
			if _, err := os.Lstat(e.path("node_modules")); !os.IsNotExist(err) {
				t.Errorf("after redo node_modules is there (%v)", err)
			}
			if got := string(e.read("lib/node_modules/u.js")); got != "the user's\n" {
				t.Errorf("lib/node_modules/u.js holds %q", got)
			}
			if r := e.ok("status", "--ignored"); !strings.HasSuffix(r.stdout, "\nI lib/node_modules/  built-in name (dependencies or a cache)\n") {
				t.Errorf("status --ignored:\n%s", r.stdout)
			}
		})
	}
	g.wait()
}

// gone checks that a.cfg and build/keep.txt are gone and build/other.o
// is as it was.
func (e *cliEnv) gone(t *testing.T, what string) {
	t.Helper()
	for _, p := range []string{"a.cfg", "build/keep.txt"} {
		if _, err := os.Lstat(e.path(p)); !os.IsNotExist(err) {
			t.Errorf("after %s %s is there (%v)", what, p, err)
		}
	}
	if got := string(e.read("build/other.o")); got != "the user's object\n" {
		t.Errorf("after %s build/other.o holds %q", what, got)
	}
}
