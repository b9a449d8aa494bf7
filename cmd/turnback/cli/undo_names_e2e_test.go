package cli

// Undo without a daemon reads the directories on the way to its paths
// by name (walker.Options.Names): in a large directory, only the turn's
// paths and the names that decide its ignore rules.

import (
	"fmt"
	"testing"

	"github.com/turnback/turnback/internal/testtier"
	"github.com/turnback/turnback/manifest/treetest"
)

// newNamesEnv is a folder whose a/ holds 300 files beside a/x.txt and
// a/deep/y.txt, snapped; no daemon.
func newNamesEnv(t *testing.T) *cliEnv {
	t.Helper()
	e := newUndoEnv(t).with("TURNBACK_AUTO_WATCH=0")
	for i := range 300 {
		e.write(fmt.Sprintf("a/%d.txt", i), fmt.Sprintf("a %d\n", i))
	}
	e.write("a/x.txt", "x before\n")
	e.write("a/deep/y.txt", "y before\n")
	e.ok("snap", "-m", "base")
	return e
}

// TestUndoByNameKilled: an undo reading a large directory by name,
// killed (SIGKILL) at each of its restore steps, is rolled back or
// finished by the next command; the user's edit beside the turn's
// paths in that directory, made after the last capture, stays.
func TestUndoByNameKilled(t *testing.T) {
	testtier.Slow(t) // a crash matrix
	t.Parallel()
	for k := 1; ; k++ {
		e := newNamesEnv(t)
		e.ok("snap", "-m", "turn")
		e.write("a/x.txt", "x by the agent\n")
		e.rm("a/deep/y.txt")
		e.write("a/z.txt", "z by the agent\n")
		e.ok("end")
		edit := treetest.Tree{"a/3.txt": treetest.File("the user's edit\n", 0o644)}
		e.write("a/3.txt", "the user's edit\n")
		agent := e.tree()
		cmd := e.with(fmt.Sprintf("TURNBACK_TEST_CRASH_AT=%d", k)).command("undo")
		err := cmd.Run()
		if err == nil {
			if k < 4 {
				t.Fatalf("undo ran to its end with TURNBACK_TEST_CRASH_AT=%d", k)
			}
			return // past the last step
		}
		if cmd.ProcessState.Exited() {
			t.Fatalf("undo with TURNBACK_TEST_CRASH_AT=%d: %v, want killed", k, err)
		}
		e.ok("status") // finishes or rolls back the undo
		got := e.tree()
		if _, ok := got["a/z.txt"]; ok {
			t.Logf("killed at step %d: rolled back", k)
			treetest.Check(t, fmt.Sprintf("killed at step %d, rolled back", k), got, agent)
			continue
		}
		t.Logf("killed at step %d: finished", k)
		want := agent.Without("a/z.txt").With(treetest.Tree{"a/x.txt": treetest.File("x before\n", 0o644),
			"a/deep/y.txt": treetest.File("y before\n", 0o644)}).With(edit)
		treetest.Check(t, fmt.Sprintf("killed at step %d, finished", k), got, want)
		// The next snap holds the edit: restore of it brings it back.
		var snap struct {
			Snapshot string `json:"snapshot"`
		}
		e.okJSON(&snap, "snap", "-m", "after")
		e.write("a/3.txt", "later\n")
		e.ok("restore", snap.Snapshot)
		e.same(fmt.Sprintf("killed at step %d: after restore of the next snap", k), want)
	}
}
