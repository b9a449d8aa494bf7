package turnback_test

import (
	"errors"
	"fmt"
	"os"
	"testing"

	"github.com/turnback/turnback"
)

// namesAttackTree is a folder whose a/ holds 300 files and a closed
// turn that rewrote a/x.txt, deleted a/y.txt and made a/z.txt: an undo
// of it reads a/ by name (walker.Options.Names), its other files unread.
func namesAttackTree(t *testing.T) *regressTree {
	rt := newRegressTree(t)
	for i := range 300 {
		rt.write(fmt.Sprintf("a/%d.txt", i), "a")
	}
	rt.write("a/x.txt", "x0")
	rt.write("a/y.txt", "y0")
	rt.snap()
	rt.write("a/x.txt", "x by the agent")
	must(t, os.Remove(rt.path("a/y.txt")))
	rt.write("a/z.txt", "z by the agent")
	rt.end()
	return rt
}

// TestUndoByNameEditsDuringUndo: edits made at every step of an undo
// that reads a/ by name, to a turn path and beside it in a/ (a file
// edited, one created, one deleted), are never lost: those beside stay
// through the undo and through restore of its checkpoint, and the next
// snap holds them; the edit of the turn path is in its file or,
// overwritten, in the checkpoint.
func TestUndoByNameEditsDuringUndo(t *testing.T) {
	t.Parallel()
	var steps []string
	rt := namesAttackTree(t)
	rt.repo.SetRestoreHook(func(s string) error { steps = append(steps, s); return nil })
	_, err := rt.repo.Undo(rt.ctx, 1, turnback.UndoOptions{})
	rt.do("undo", err)
	if len(steps) < 4 {
		t.Fatalf("restore steps %q", steps)
	}
	for k := range steps {
		t.Run(fmt.Sprintf("%d_%s", k, steps[k]), func(t *testing.T) {
			t.Parallel()
			rt := namesAttackTree(t)
			inside, beside := fmt.Sprintf("typed at step %d", k), fmt.Sprintf("beside at step %d", k)
			n := 0
			rt.repo.SetRestoreHook(func(string) error {
				if n == k {
					rt.write("a/x.txt", inside)
					rt.write("a/7.txt", beside)
					rt.write("a/user.txt", beside)
					must(t, os.Remove(rt.path("a/8.txt")))
				}
				n++
				return nil
			})
			res, err := rt.repo.Undo(rt.ctx, 1, turnback.UndoOptions{})
			rt.repo.SetRestoreHook(nil)
			besideKept := func(when string) {
				t.Helper()
				if got := rt.read("a/7.txt"); got != beside {
					t.Fatalf("%s a/7.txt holds %q, want %q", when, got, beside)
				}
				if got := rt.read("a/user.txt"); got != beside {
					t.Fatalf("%s a/user.txt holds %q, want %q", when, got, beside)
				}
				if _, err := os.Lstat(rt.path("a/8.txt")); !os.IsNotExist(err) {
					t.Fatalf("%s a/8.txt: %v, want none (deleted by the user)", when, err)
				}
			}
			var ce *turnback.ConflictError
			if errors.As(err, &ce) {
				if got := rt.read("a/x.txt"); got != inside && got != "x by the agent" {
					t.Fatalf("after a refused undo a/x.txt holds %q", got)
				}
				besideKept("after a refused undo")
				return
			}
			rt.do("undo", err)
			besideKept("after the undo")
			if rt.read("a/x.txt") != inside {
				_, err = rt.repo.Restore(rt.ctx, res.Checkpoint.String(), turnback.RestoreOptions{})
				rt.do("restore of the checkpoint", err)
				if got := rt.read("a/x.txt"); got != inside {
					t.Fatalf("the edit of a/x.txt is lost: the checkpoint gives %q, want %q", got, inside)
				}
				besideKept("after restore of the checkpoint")
			}
			// The next snap reads a/ whole: restore of it brings the
			// edits beside back.
			s := rt.snap()
			rt.write("a/7.txt", "later")
			must(t, os.Remove(rt.path("a/user.txt")))
			_, err = rt.repo.Restore(rt.ctx, s, turnback.RestoreOptions{})
			rt.do("restore of the snap", err)
			besideKept("after restore of the next snap")
		})
	}
}
