//go:build linux

package cli

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// chattr sets or clears the immutable attribute, skipping the test where
// that is not possible (not root, no chattr, a filesystem without it).
func (e *cliEnv) chattr(flag, p string) {
	e.t.Helper()
	if os.Geteuid() != 0 {
		e.t.Skip("needs root for chattr +i")
	}
	if out, err := exec.Command("chattr", flag, e.path(p)).CombinedOutput(); err != nil {
		if flag == "+i" {
			e.t.Skipf("chattr %s: %v %s", flag, err, out)
		}
		e.t.Fatalf("chattr %s: %v %s", flag, err, out)
	}
}

// TestUndoHalfApplied: an undo that fails after its commit point (a file
// made immutable refuses the rename: EPERM) is never reported done:
// status, log, undo and redo fail naming the path and the cause until it
// is finished (once the cause is gone, the next command finishes it) or
// rolled back (recover --rollback: the exact state before the undo, the
// turn not undone); no staging file survives either.
func TestUndoHalfApplied(t *testing.T) {
	t.Parallel()
	g := newSubtestGroup(t)
	for _, how := range []string{"fixed", "recover", "rollback", "daemon-rollback"} {
		g.run(how, func(t *testing.T) {
			e := newInProcessEnv(t) // fixed and rollback: in-process
			if how == "recover" || how == "daemon-rollback" {
				e = newUndoEnv(t)
				e.shortXDG()
			}
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
			if how == "daemon-rollback" {
				e.startWatchDaemon()
			}
			e.chattr("+i", "b.txt")
			t.Cleanup(func() { exec.Command("chattr", "-i", e.path("b.txt")).Run() })
			r := e.expect(1, "undo")
			if !strings.Contains(r.stderr, "b.txt") || !strings.Contains(r.stderr, "operation not permitted") {
				t.Errorf("the failed undo does not name b.txt and the cause:\n%v", r)
			}
			for _, args := range [][]string{{"status"}, {"log"}, {"undo"}, {"redo"}, {"recover"}} {
				r := e.expect(1, args...)
				if !strings.Contains(r.stderr, "not finished") || !strings.Contains(r.stderr, "b.txt") ||
					!strings.Contains(r.stderr, "operation not permitted") || !strings.Contains(r.stderr, "recover --rollback") {
					t.Errorf("%s does not say the undo is not finished, naming b.txt and the cause:\n%v", args[0], r)
				}
			}
			switch how {
			case "fixed", "recover":
				e.chattr("-i", "b.txt")
				if how == "recover" {
					if r := e.ok("recover"); r.stdout != "finished the interrupted operation\n" {
						t.Errorf("recover printed %q", r.stdout)
					}
				} else {
					e.ok("status")
				}
				e.same("after the undo was finished", old)
				if r := e.ok("log"); !strings.Contains(r.stdout, "undone") {
					t.Errorf("log does not show the turn undone:\n%s", r.stdout)
				}
				e.ok("redo")
				e.same("after redo", after)
			case "rollback", "daemon-rollback":
				r := e.ok("recover", "--rollback")
				if !strings.HasPrefix(r.stdout, "rolled back the interrupted operation") {
					t.Errorf("recover --rollback printed %q", r.stdout)
				}
				e.same("after the rollback", after)
				if r := e.ok("status"); strings.Contains(r.stdout, ".txt") {
					t.Errorf("status after the rollback lists changes:\n%s", r.stdout)
				}
				if r := e.ok("recover", "--rollback"); r.stdout != "nothing to recover\n" {
					t.Errorf("a second recover --rollback printed %q", r.stdout)
				}
				e.chattr("-i", "b.txt")
				e.ok("undo")
				e.same("after undo once the file is mutable", old)
			}
		})
	}
	g.wait()
}
