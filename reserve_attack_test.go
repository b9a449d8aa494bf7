package turnback_test

// Attacks on the reserved commit of undo and redo (cas.Badger.Reserve,
// commit cc1c6ed): faults injected on the overlay log's append and sync
// once the restore passed its commit point. The next operation must
// finish the restore from its journal; the store must verify, and the
// undo must be recorded once.

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/turnback/turnback"
	"github.com/turnback/turnback/cas"
)

// raFiles writes name: data pairs into work.
func raFiles(t *testing.T, work string, kv ...string) {
	t.Helper()
	for i := 0; i < len(kv); i += 2 {
		p := filepath.Join(work, filepath.FromSlash(kv[i]))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(kv[i+1]), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// raRead returns the content of name in work ("-" if absent).
func raRead(t *testing.T, work, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(work, filepath.FromSlash(name)))
	if errors.Is(err, os.ErrNotExist) {
		return "-"
	}
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// raState is d/a.txt, d/b.txt and d/n.txt of work.
func raState(t *testing.T, work string) string {
	return raRead(t, work, "d/a.txt") + "|" + raRead(t, work, "d/b.txt") + "|" + raRead(t, work, "d/n.txt")
}

// raTurn makes a folder with one ended turn in d/ and the user's edit
// of d/b.txt after it (outside the turn), its store closed.
func raTurn(t *testing.T) (work, store string) {
	t.Helper()
	ctx := t.Context()
	base := t.TempDir()
	work, store = filepath.Join(base, "work"), filepath.Join(base, "store")
	raFiles(t, work, "d/a.txt", "a before\n", "d/b.txt", "b before\n", "top.txt", "top\n")
	r, err := turnback.Open(ctx, work, turnback.Options{Store: store})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Snap(ctx, "turn"); err != nil {
		t.Fatal(err)
	}
	raFiles(t, work, "d/a.txt", "a by the agent\n", "d/n.txt", "new\n")
	if _, err := r.End(ctx); err != nil {
		t.Fatal(err)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	raFiles(t, work, "d/b.txt", "the user's edit\n")
	return work, store
}

const (
	raEdited = "a by the agent\n|the user's edit\n|new\n"
	raUndone = "a before\n|the user's edit\n|-"
)

// raFaultAfterCommit installs a fault hook that fails the first call of
// op once the restore reached its "commit" step.
func raFaultAfterCommit(r *turnback.Repo, op string, ferr error) (hit *atomic.Bool, remove func()) {
	var armed atomic.Bool
	hit = new(atomic.Bool)
	r.SetRestoreHook(func(step string) error {
		if step == "commit" {
			armed.Store(true)
		}
		return nil
	})
	remove = cas.SetFaults(func(o, _ string) error {
		if o == op && armed.Load() && hit.CompareAndSwap(false, true) {
			return ferr
		}
		return nil
	})
	return hit, remove
}

// raCheckUndone checks that the folder is undone, the store verifies,
// the undo is recorded once, and a redo brings the turn back.
func raCheckUndone(t *testing.T, ctx context.Context, r *turnback.Repo, work, what string) {
	t.Helper()
	turns, redo, err := r.Turns(ctx)
	if err != nil {
		t.Fatalf("%s: turns: %v", what, err)
	}
	if got := raState(t, work); got != raUndone {
		t.Fatalf("%s: the folder is %q, want %q", what, got, raUndone)
	}
	if len(turns) != 0 || len(redo) != 1 {
		t.Errorf("%s: %d turns and %d to redo, want 0 and 1", what, len(turns), len(redo))
	}
	if res, err := r.Verify(ctx); err != nil {
		t.Errorf("%s: verify: %v %+v", what, err, res.Problems)
	}
	if _, err := r.Redo(ctx, 1, turnback.RedoOptions{}); err != nil {
		t.Fatalf("%s: redo: %v", what, err)
	}
	if got := raState(t, work); got != raEdited {
		t.Errorf("%s: after redo the folder is %q, want %q", what, got, raEdited)
	}
	if res, err := r.Verify(ctx); err != nil {
		t.Errorf("%s: verify after redo: %v %+v", what, err, res.Problems)
	}
}

// TestReserveAttackCommitFault: an EIO or ENOSPC on the append of the
// undo's commit frame, or on its sync, fails the undo after its files
// changed. The next operation, in the same process or after a new
// open, finishes the undo from the journal: the store must verify (the
// trees the undo wrote before the journal must not be dropped with the
// failed frame), the undo is recorded once, and redo works.
func TestReserveAttackCommitFault(t *testing.T) {
	ctx := t.Context() // not parallel: cas.SetFaults is process-wide
	for _, op := range []string{"overlay", "overlaysync"} {
		for _, ferr := range []error{syscall.EIO, syscall.ENOSPC} {
			for _, reopen := range []bool{false, true} {
				name := op + "/" + ferr.Error()
				if reopen {
					name += "/reopened"
				}
				t.Run(name, func(t *testing.T) {
					work, store := raTurn(t)
					r, err := turnback.Open(ctx, work, turnback.Options{Store: store})
					if err != nil {
						t.Fatal(err)
					}
					defer func() { r.Close() }()
					hit, remove := raFaultAfterCommit(r, op, ferr)
					_, err = r.Undo(ctx, 1, turnback.UndoOptions{})
					remove()
					r.SetRestoreHook(nil)
					if !hit.Load() {
						t.Fatalf("no %s after the commit step (undo: %v)", op, err)
					}
					if err == nil {
						t.Fatalf("undo succeeded though its commit's %s failed", op)
					}
					if !errors.Is(err, ferr) {
						t.Errorf("undo: %v, want %v", err, ferr)
					}
					if reopen {
						r = raReopen(ctx, t, r, work, store)
					}
					raCheckUndone(t, ctx, r, work, name)
				})
			}
		}
	}
}

// TestReserveAttackDisplacedThenCommitFault: the user rewrites d/a.txt
// while the undo runs (at its "place d/a.txt" step); the undo saves
// what it displaced (restore.Options.Save, which must be durable when
// it returns) and amends its checkpoint with it. The commit frame then
// fails (EIO). After the next operation finishes the undo, the
// checkpoint must hold the user's edit, the store must verify, and
// restore of the checkpoint must bring the edit back.
func TestReserveAttackDisplacedThenCommitFault(t *testing.T) {
	ctx := t.Context() // not parallel: cas.SetFaults is process-wide
	for _, reopen := range []bool{false, true} {
		t.Run(map[bool]string{false: "same process", true: "reopened"}[reopen], func(t *testing.T) {
			work, store := raTurn(t)
			r, err := turnback.Open(ctx, work, turnback.Options{Store: store})
			if err != nil {
				t.Fatal(err)
			}
			defer func() { r.Close() }()
			const mid = "the user's edit while the undo ran\n"
			var armed, hit atomic.Bool
			r.SetRestoreHook(func(step string) error {
				switch step {
				case "place d/a.txt":
					raFiles(t, work, "d/a.txt", mid)
				case "commit":
					armed.Store(true)
				}
				return nil
			})
			remove := cas.SetFaults(func(o, _ string) error {
				if o == "overlay" && armed.Load() && hit.CompareAndSwap(false, true) {
					return syscall.EIO
				}
				return nil
			})
			_, err = r.Undo(ctx, 1, turnback.UndoOptions{})
			remove()
			r.SetRestoreHook(nil)
			if !hit.Load() || err == nil {
				t.Fatalf("the commit frame did not fail (hit %v): undo: %v", hit.Load(), err)
			}
			if reopen {
				r = raReopen(ctx, t, r, work, store)
			}
			raDisplacedKept(ctx, t, r, work, mid)
		})
	}
}

// TestReserveAttackConflictThenUndo: the undo reserves its commit, then
// its last look before the commit point finds d/a.txt changed (the user
// wrote it while the undo staged): a conflict, nothing changed. The
// reservation and the records it was for are not used. In this process
// and after a new open, the store verifies, no undo is recorded, and
// once the edit is gone an undo and a redo work.
func TestReserveAttackConflictThenUndo(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	for _, reopen := range []bool{false, true} {
		t.Run(map[bool]string{false: "same process", true: "reopened"}[reopen], func(t *testing.T) {
			work, store := raTurn(t)
			r, err := turnback.Open(ctx, work, turnback.Options{Store: store})
			if err != nil {
				t.Fatal(err)
			}
			defer func() { r.Close() }()
			r.SetRestoreHook(func(step string) error {
				if step == "stage 0" {
					raFiles(t, work, "d/a.txt", "written while the undo staged\n")
				}
				return nil
			})
			_, err = r.Undo(ctx, 1, turnback.UndoOptions{})
			r.SetRestoreHook(nil)
			if !errors.Is(err, turnback.ErrConflict) {
				t.Fatalf("undo: %v, want a conflict", err)
			}
			if got, want := raState(t, work), "written while the undo staged\n|the user's edit\n|new\n"; got != want {
				t.Fatalf("after the conflict the folder is %q, want %q", got, want)
			}
			if reopen {
				if err := r.Close(); err != nil {
					t.Fatalf("close after the conflict: %v", err)
				}
				if r, err = turnback.Open(ctx, work, turnback.Options{Store: store}); err != nil {
					t.Fatal(err)
				}
			}
			if res, err := r.Verify(ctx); err != nil {
				t.Errorf("verify after the conflict: %v %+v", err, res.Problems)
			}
			turns, redo, err := r.Turns(ctx)
			if err != nil || len(turns) != 1 || len(redo) != 0 {
				t.Fatalf("after the conflict: %d turns, %d to redo, %v; want 1, 0", len(turns), len(redo), err)
			}
			raFiles(t, work, "d/a.txt", "a by the agent\n")
			if _, err := r.Undo(ctx, 1, turnback.UndoOptions{}); err != nil {
				t.Fatalf("undo once the edit is gone: %v", err)
			}
			raCheckUndone(t, ctx, r, work, "undo after the conflict")
		})
	}
}

// TestReserveAttackReserveFault: EIO or ENOSPC allocating the commit's
// room (before any file changed) fails the undo with that cause (a
// full disk as cas.ErrNoSpace, naming the store), changes nothing, and
// leaves a store that verifies; the undo then works.
func TestReserveAttackReserveFault(t *testing.T) {
	ctx := t.Context() // not parallel: cas.SetFaults is process-wide
	for _, ferr := range []error{syscall.EIO, syscall.ENOSPC} {
		t.Run(ferr.Error(), func(t *testing.T) {
			work, store := raTurn(t)
			r, err := turnback.Open(ctx, work, turnback.Options{Store: store})
			if err != nil {
				t.Fatal(err)
			}
			defer func() { r.Close() }()
			var hit atomic.Bool
			remove := cas.SetFaults(func(o, _ string) error {
				if o == "overlayreserve" && hit.CompareAndSwap(false, true) {
					return ferr
				}
				return nil
			})
			_, err = r.Undo(ctx, 1, turnback.UndoOptions{})
			remove()
			if !hit.Load() {
				t.Skip("the undo reserved nothing (the store's filesystem cannot allocate ahead)")
			}
			if !errors.Is(err, ferr) {
				t.Fatalf("undo: %v, want %v", err, ferr)
			}
			if ferr == syscall.ENOSPC && (!errors.Is(err, cas.ErrNoSpace) || !strings.Contains(err.Error(), store)) {
				t.Errorf("undo on a full disk: %q, want cas.ErrNoSpace naming the store %s", err, store)
			}
			if got := raState(t, work); got != raEdited {
				t.Fatalf("the failed undo changed the folder: %q", got)
			}
			if err := r.Close(); err != nil {
				t.Fatalf("close: %v", err)
			}
			if r, err = turnback.Open(ctx, work, turnback.Options{Store: store}); err != nil {
				t.Fatal(err)
			}
			if res, err := r.Verify(ctx); err != nil {
				t.Errorf("verify: %v %+v", err, res.Problems)
			}
			if _, err := r.Undo(ctx, 1, turnback.UndoOptions{}); err != nil {
				t.Fatalf("undo: %v", err)
			}
			raCheckUndone(t, ctx, r, work, "undo after the failed reserve")
		})
	}
}

// raDisplacedKept finishes an undo that an edit of d/a.txt (to mid)
// displaced, through r's next command, and checks the folder is undone,
// the store verifies, and the undo's checkpoint holds the edit.
func raDisplacedKept(ctx context.Context, t *testing.T, r *turnback.Repo, work, mid string) {
	t.Helper()
	if _, err := r.Status(ctx); err != nil { // finishes the undo
		t.Fatal(err)
	}
	if got := raState(t, work); got != raUndone {
		t.Fatalf("after the finished undo the folder is %q, want %q", got, raUndone)
	}
	if res, err := r.Verify(ctx); err != nil {
		t.Errorf("verify: %v %+v", err, res.Problems)
	}
	cps, err := r.Checkpoints(ctx)
	if err != nil || len(cps) == 0 {
		t.Fatalf("checkpoints: %v %v", cps, err)
	}
	cp := cps[0]
	for _, c := range cps {
		if c.Time.After(cp.Time) {
			cp = c
		}
	}
	if _, err := r.Restore(ctx, cp.ID, turnback.RestoreOptions{}); err != nil {
		t.Fatalf("restore of the undo's checkpoint %s: %v", cp.ID, err)
	}
	if got := raRead(t, work, "d/a.txt"); got != mid {
		t.Errorf("after restore of the checkpoint d/a.txt is %q, want the edit made while the undo ran", got)
	}
}

// raReopen closes r and opens the store of work anew, as the next
// command would.
func raReopen(ctx context.Context, t *testing.T, r *turnback.Repo, work, store string) *turnback.Repo {
	t.Helper()
	r.Close()
	r, err := turnback.Open(ctx, work, turnback.Options{Store: store})
	if err != nil {
		t.Fatal(err)
	}
	return r
}
