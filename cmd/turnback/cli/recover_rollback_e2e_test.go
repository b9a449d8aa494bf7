//go:build linux

package cli

import (
	"encoding/json"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/turnback/turnback/internal/testtier"
	"github.com/turnback/turnback/manifest/treetest"
)

// rbDoc is the --json document of recover.
type rbDoc struct {
	Found         bool              `json:"found"`
	RolledBack    bool              `json:"rolled_back"`
	Restored      []string          `json:"restored"`
	Deleted       []string          `json:"deleted"`
	Created       []string          `json:"created"`
	NotRestorable []string          `json:"not_restorable"`
	Reasons       map[string]string `json:"reasons"`
}

// rbHalfUndo sets up a turn (a, b, c modified, gone.txt deleted, new.txt
// created) and an undo of it that fails part way: b.txt is immutable.
// It returns the trees before and after the turn.
func rbHalfUndo(t *testing.T, daemon bool) (*cliEnv, treetest.Tree, treetest.Tree) {
	e := newUndoEnv(t)
	e.shortXDG()
	for _, p := range []string{"a.txt", "b.txt", "c.txt"} {
		e.write(p, p+" before\n")
	}
	e.write("gone.txt", "deleted by the turn\n")
	old := e.tree()
	e.ok("snap")
	for _, p := range []string{"a.txt", "b.txt", "c.txt"} {
		e.write(p, p+" after\n")
	}
	e.rm("gone.txt")
	e.write("new.txt", "made by the turn\n")
	e.ok("end")
	after := e.tree()
	if daemon {
		e.startWatchDaemon()
	}
	e.chattr("+i", "b.txt")
	t.Cleanup(func() { exec.Command("chattr", "-i", e.path("b.txt")).Run() })
	e.expect(1, "undo")
	if string(e.read("a.txt")) != "a.txt before\n" {
		t.Fatalf("the failed undo did not get as far as a.txt: %q", e.read("a.txt"))
	}
	return e, old, after
}

// rbRollback runs recover --rollback --json, wanting exit 0.
func rbRollback(e *cliEnv) rbDoc {
	e.t.Helper()
	var doc rbDoc
	r := e.ok("--json", "recover", "--rollback")
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
		e.t.Fatalf("%v: %v", r, err)
	}
	return doc
}

// TestRollbackAfterCauseRemoved: once the cause of a half-applied undo is
// gone, recover --rollback still rolls it back (it used to finish the
// undo while opening the store and say "rolled_back": false): the folder
// is exactly as before the undo, and the turn is not undone. Also with
// a session named (TURNBACK_SESSION, as agents set it), whose look-up
// must not finish the undo either, and through a watch daemon.
func TestRollbackAfterCauseRemoved(t *testing.T) {
	t.Parallel()
	g := newSubtestGroup(t)
	for _, how := range []string{"cli", "daemon", "cli-session", "daemon-session"} {
		g.run(how, func(t *testing.T) {
			e, old, after := rbHalfUndo(t, strings.HasPrefix(how, "daemon"))
			e.chattr("-i", "b.txt")
			if strings.HasSuffix(how, "-session") {
				e.extra = append(e.extra, "TURNBACK_SESSION=default")
			}
			doc := rbRollback(e)
			if !doc.Found || !doc.RolledBack {
				t.Errorf("recover --rollback: found %v, rolled_back %v; want both true", doc.Found, doc.RolledBack)
			}
			e.same("after the rollback", after)
			if r := e.ok("log"); strings.Contains(r.stdout, "undone") {
				t.Errorf("log shows the turn undone after the rollback:\n%s", r.stdout)
			}
			if r := e.ok("recover", "--rollback"); r.stdout != "nothing to recover\n" {
				t.Errorf("a second recover --rollback printed %q", r.stdout)
			}
			e.ok("undo")
			e.same("after an undo once the cause is gone", old)
		})
	}
	g.wait()
}

// TestRollbackKeepsEdits: paths the user edited after the undo stopped
// (one the undo had rewritten, one it had not reached) are left as they
// are by the rollback and listed; the rest goes back.
func TestRollbackKeepsEdits(t *testing.T) {
	t.Parallel()
	e, _, after := rbHalfUndo(t, false)
	e.chattr("-i", "b.txt")
	e.write("a.txt", "user edit of a\n")
	e.write("c.txt", "user edit of c\n")
	doc := rbRollback(e)
	if !doc.RolledBack {
		t.Errorf("not rolled back: %+v", doc)
	}
	e.same("after the rollback", after.With(treetest.Tree{"a.txt": treetest.File("user edit of a\n", 0o644), "c.txt": treetest.File("user edit of c\n", 0o644)}))
	if strings.Join(doc.NotRestorable, " ") != "a.txt c.txt" || doc.Reasons["a.txt"] == "" {
		t.Errorf("the edited paths are not listed as left as is: %+v", doc)
	}
}

// TestRollbackKilled: recover --rollback killed (SIGKILL) at each of its
// steps, then run again, rolls back: the folder is as before the undo,
// the turn is not undone, and no journal or staging file is left (the
// tree comparison sees staging files).
func TestRollbackKilled(t *testing.T) {
	testtier.Slow(t)
	t.Parallel()
	g := newSubtestGroup(t)
	for k := 1; k <= 10; k++ {
		g.run("step"+strconv.Itoa(k), func(t *testing.T) {
			e, _, after := rbHalfUndo(t, false)
			e.chattr("-i", "b.txt")
			cmd := e.command("recover", "--rollback")
			cmd.Env = append(cmd.Env, "TURNBACK_TEST_CRASH_AT="+strconv.Itoa(k))
			out, _ := cmd.CombinedOutput()
			killed := cmd.ProcessState.ExitCode() == -1
			if !killed && cmd.ProcessState.ExitCode() != 0 {
				t.Fatalf("recover --rollback with a crash at step %d: exit %d\n%s", k, cmd.ProcessState.ExitCode(), out)
			}
			t.Logf("killed at step %d: %v", k, killed)
			doc := rbRollback(e)
			if killed && (!doc.Found || !doc.RolledBack) {
				t.Errorf("killed at step %d, the second recover --rollback says %+v", k, doc)
			}
			e.same("after the rollback", after)
			if r := e.ok("log"); strings.Contains(r.stdout, "undone") {
				t.Errorf("log shows the turn undone after the rollback:\n%s", r.stdout)
			}
			if r := e.ok("recover"); r.stdout != "nothing to recover\n" {
				t.Errorf("recover after the rollback printed %q", r.stdout)
			}
		})
	}
	g.wait()
}
