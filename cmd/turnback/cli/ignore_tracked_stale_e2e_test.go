package cli

import (
	"os"
	"slices"
	"testing"
)

// Attacks on the tracked_ignored list of a state's record (review45):
// a restore stamps its result, and the capture memo of that result,
// with the list of the state it started from. These tests drive the
// built binary, without and with a watch daemon; each fails where the
// list a redo goes to lost a path git tracks that the state lacks.

// forcedCLI sets up a repository whose .gitignore ignores *.cfg and
// build/, where git tracks a.cfg, build/keep.txt and sub/c.cfg (git add
// -f) and build/other.o is the user's, untracked. With watch a daemon
// watches the folder.
func forcedCLI(t *testing.T, watch bool) *cliEnv {
	t.Helper()
	e := newStoreEnv(t)
	e.write(".gitignore", "*.cfg\nbuild/\n")
	e.write("a.cfg", "tracked v0\n")
	e.write("b", "b\n")
	e.write("build/keep.txt", "keep v0\n")
	e.write("build/other.o", "the user's object\n")
	e.write("sub/c.cfg", "c v0\n")
	e.write("sub/d", "d\n")
	gitIn(t, e.dir, "init", "-q")
	gitIn(t, e.dir, "add", "-f", "a.cfg", "build/keep.txt", "sub/c.cfg")
	if watch {
		t.Cleanup(func() { e.run("watch", "--stop") })
		e.ok("watch", "--detach")
	}
	return e
}

// forcedSetup is e for the turns that set a test up: in-process
// without a daemon (env "store"), else e itself.
func forcedSetup(e *cliEnv, env string) *cliEnv {
	if env == "watch" {
		return e
	}
	return e.setup()
}

// wantGone checks that the command what deleted ps, which are gone, and
// left build/other.o, the user's, as it was.
func (e *cliEnv) wantGone(t *testing.T, what string, doc restoreDoc, ps ...string) {
	t.Helper()
	for _, p := range ps {
		if _, err := os.Lstat(e.path(p)); !os.IsNotExist(err) {
			t.Errorf("after %s %s is still there (%v)", what, p, err)
		}
	}
	if !slices.Equal(doc.Deleted, ps) || len(doc.NotRestorable) != 0 {
		t.Errorf("%s: deleted %q, want %q; not restored %q", what, doc.Deleted, ps, doc.NotRestorable)
	}
	if got := string(e.read("build/other.o")); got != "the user's object\n" {
		t.Errorf("after %s build/other.o holds %q", what, got)
	}
}

// TestRedoAfterUserEditDeletesForceAddedCLI: a turn deletes a.cfg and
// build/keep.txt (tracked, ignored by .gitignore). undo; the user makes
// c; redo deletes them (its result, a tree no capture made, is recorded
// with the list of its start, where both were there: none); undo; redo
// must delete them again. It left both, "ignored in the state restored
// to": the undo's checkpoint, that tree, got the list of the capture
// intersected with the result's empty one.
func TestRedoAfterUserEditDeletesForceAddedCLI(t *testing.T) {
	t.Parallel()
	needTools(t, "git")
	g := newSubtestGroup(t)
	for _, env := range []string{"store", "watch"} {
		g.run(env, func(t *testing.T) {
			e := forcedCLI(t, env == "watch")
			ip := forcedSetup(e, env)
			ip.ok("snap", "-m", "delete the config")
			e.rm("a.cfg")
			e.rm("build/keep.txt")
			ip.ok("end")
			e.ok("undo")
			e.write("c", "the user's c\n")
			e.wantGone(t, "redo", e.jsonOK("redo"), "a.cfg", "build/keep.txt")
			e.ok("undo")
			e.wantGone(t, "the second redo", e.jsonOK("redo"), "a.cfg", "build/keep.txt")
		})
	}
	g.wait()
}

// TestRedoTwoTurnsTwiceDeletesForceAddedCLI: turn 1 deletes sub/c.cfg
// (tracked, ignored by .gitignore), turn 2 edits b. "undo 2", "redo 2",
// "undo 2", "redo 2": the second redo must delete sub/c.cfg again, as
// the first did. Without a daemon it left it, "ignored in the state
// restored to": the redo of turn 2 captured only b's directory, taking
// sub/ and its tracked_ignored entries from the capture memo of the
// first step's result, which is the list of that step's start (sub/c.cfg
// there), so the record of turn 1's end lost sub/c.cfg.
func TestRedoTwoTurnsTwiceDeletesForceAddedCLI(t *testing.T) {
	t.Parallel()
	needTools(t, "git")
	g := newSubtestGroup(t)
	for _, env := range []string{"store", "watch"} {
		g.run(env, func(t *testing.T) {
			e := forcedCLI(t, env == "watch")
			ip := forcedSetup(e, env)
			ip.ok("snap", "-m", "delete sub's config")
			e.rm("sub/c.cfg")
			ip.ok("end")
			ip.ok("snap", "-m", "edit b")
			e.write("b", "the agent's b\n")
			ip.ok("end")
			for round := range 2 {
				e.ok("undo", "2")
				if got := string(e.read("sub/c.cfg")); got != "c v0\n" {
					t.Fatalf("round %d: undo 2 left sub/c.cfg %q", round, got)
				}
				doc := e.jsonOK("redo", "2")
				if _, err := os.Lstat(e.path("sub/c.cfg")); !os.IsNotExist(err) || !slices.Contains(doc.Deleted, "sub/c.cfg") {
					t.Errorf("round %d: redo 2 left sub/c.cfg (%v): deleted %q, not restored %q", round, err, doc.Deleted, doc.NotRestorable)
				}
			}
		})
	}
	g.wait()
}
