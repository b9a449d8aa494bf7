package turnback_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/turnback/turnback"
	"github.com/turnback/turnback/manifest/treetest"
)

// TestRecoverRollbackDeferred: an undo that failed after its commit point
// (an injected fault at one step, gone afterwards) is rolled back by
// Recover on a store opened with DeferRecovery: the work tree is the
// state before the undo and the turn is not undone. Opened without it,
// Open finishes the undo and Recover with rollback says there is
// nothing left to roll back (ErrNothingToRollBack), rather than
// reporting a rollback that did not happen.
func TestRecoverRollbackDeferred(t *testing.T) {
	for _, deferred := range []bool{true, false} {
		t.Run(map[bool]string{true: "deferred", false: "open-finishes"}[deferred], func(t *testing.T) {
			ctx := t.Context()
			base := t.TempDir()
			work, store := filepath.Join(base, "work"), filepath.Join(base, "store")
			write := func(name, data string) {
				t.Helper()
				if err := os.WriteFile(filepath.Join(work, name), []byte(data), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.MkdirAll(work, 0o755); err != nil {
				t.Fatal(err)
			}
			write("a.txt", "a before\n")
			write("b.txt", "b before\n")
			r, err := turnback.Open(ctx, work, turnback.Options{Store: store})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := r.Snap(ctx, "turn"); err != nil {
				t.Fatal(err)
			}
			write("a.txt", "a after\n")
			write("b.txt", "b after\n")
			if _, err := r.End(ctx); err != nil {
				t.Fatal(err)
			}
			after := treetest.MustRead(t, work)
			r.SetRestoreHook(func(step string) error {
				if step == "place b.txt" {
					return errors.New("injected fault")
				}
				return nil
			})
			if _, err := r.Undo(ctx, 1, turnback.UndoOptions{}); !errors.Is(err, turnback.ErrUnfinished) {
				t.Fatalf("undo with a fault at b.txt: %v, want ErrUnfinished", err)
			}
			r.Close()
			if data, _ := os.ReadFile(filepath.Join(work, "a.txt")); string(data) != "a before\n" {
				t.Fatalf("the failed undo did not rewrite a.txt: %q", data)
			}
			r, err = turnback.Open(ctx, work, turnback.Options{Store: store, DeferRecovery: deferred})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			res, err := r.Recover(ctx, true)
			if !deferred {
				if !errors.Is(err, turnback.ErrNothingToRollBack) {
					t.Errorf("Recover(rollback) after Open finished the undo: %+v, %v; want ErrNothingToRollBack", res, err)
				}
				return
			}
			if err != nil || !res.Found || !res.RolledBack {
				t.Fatalf("Recover(rollback): %+v, %v", res, err)
			}
			treetest.Check(t, "after the rollback", treetest.MustRead(t, work), after)
			turns, redo, err := r.Turns(ctx)
			if err != nil || len(turns) != 1 || len(redo) != 0 {
				t.Fatalf("after the rollback: %d turns, %d undone, %v; want 1, 0", len(turns), len(redo), err)
			}
			st, err := r.Status(ctx)
			if err != nil || len(st.Changes) != 0 {
				t.Errorf("status after the rollback: %+v, %v", st, err)
			}
		})
	}
}
