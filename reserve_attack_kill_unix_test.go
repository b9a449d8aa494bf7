//go:build unix

package turnback_test

import (
	"errors"
	"os"
	"os/exec"
	"syscall"
	"testing"

	"github.com/turnback/turnback"
)

// TestReserveAttackKilledAfterDisplaced: the user rewrites d/a.txt
// while an undo places it; the undo saves what it displaced
// (restore.Options.Save: durable when it returns), removes it, and is
// killed (SIGKILL) at its commit step, the journal written. The next
// open finishes the undo; its checkpoint must hold the user's edit
// (restore of it brings the edit back) and the store must verify.
// The undo runs in a child process: this test binary run again.
func TestReserveAttackKilledAfterDisplaced(t *testing.T) {
	const mid = "the user's edit while the undo ran\n"
	if work := os.Getenv("RA_CHILD_WORK"); work != "" {
		raKilledChild(t, work, os.Getenv("RA_CHILD_STORE"), mid)
		return
	}
	t.Parallel()
	ctx := t.Context()
	work, store := raTurn(t)
	cmd := exec.Command(os.Args[0], "-test.run=^TestReserveAttackKilledAfterDisplaced$", "-test.count=1")
	cmd.Env = append(os.Environ(), "RA_CHILD_WORK="+work, "RA_CHILD_STORE="+store)
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.Exited() {
		t.Fatalf("the child undo was not killed: %v\n%s", err, out)
	}
	r, err := turnback.Open(ctx, work, turnback.Options{Store: store})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	raDisplacedKept(ctx, t, r, work, mid)
}

// raKilledChild runs the undo of TestReserveAttackKilledAfterDisplaced
// and kills its own process at the commit step.
func raKilledChild(t *testing.T, work, store, mid string) {
	ctx := t.Context()
	r, err := turnback.Open(ctx, work, turnback.Options{Store: store})
	if err != nil {
		t.Fatal(err)
	}
	r.SetRestoreHook(func(step string) error {
		switch step {
		case "place d/a.txt":
			raFiles(t, work, "d/a.txt", mid)
		case "commit":
			_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
			select {}
		}
		return nil
	})
	_, err = r.Undo(ctx, 1, turnback.UndoOptions{})
	t.Fatalf("the undo was not killed at its commit step: %v", err)
}
