package turnback_test

import (
	"os"
	"strings"
	"testing"

	"github.com/turnback/turnback"
)

// TestModelSeedUndoClosedTurn replays a model sequence where restore of
// a turn's after-state failed: "unknown snapshot id". At step 18 an
// undo --path found the open turn 4, closed it at the state then, and
// had nothing to do: the path already held its old content. The closed
// turn's after-state got no snapshot record, so restore by its id
// failed at step 39.
func TestModelSeedUndoClosedTurn(t *testing.T) {
	if err := runModelSequence(t, 1409813296652470241, 60, true); err != nil {
		t.Fatal(err)
	}
}

// TestRegressUndoClosedTurnIsASnapshot: an undo that closes the open
// turn records its after-state as an end does, so that restore and show
// find it by the id the turn lists. "nothing": an undo --path with
// nothing to change. "uncaptured": an undo whose checkpoint differs from
// the state it closed the turn at, as it stores an uncaptured file.
func TestRegressUndoClosedTurnIsASnapshot(t *testing.T) {
	t.Parallel()
	t.Run("nothing", func(t *testing.T) {
		rt := newRegressTree(t)
		rt.write("a.txt", "one\n")
		rt.snap()
		rt.write("a.txt", "turn 1\n")
		rt.snap() // closes turn 1, opens turn 2
		rt.write("b.txt", "turn 2\n")
		rt.write("a.txt", "one\n") // the user puts a.txt back by hand
		res, err := rt.repo.Undo(rt.ctx, 2, turnback.UndoOptions{Paths: []string{"a.txt"}})
		rt.do("undo --path", err)
		if !res.Nothing {
			t.Fatalf("undo --path a.txt: %+v, want nothing to undo", res)
		}
		rt.wantClosedRestorable(mtree{
			"a.txt": {kind: mFile, mode: 0o644, data: "one\n"},
			"b.txt": {kind: mFile, mode: 0o644, data: "turn 2\n"},
		})
	})
	t.Run("uncaptured", func(t *testing.T) {
		rt := newRegressTreeWith(t, turnback.Options{SizeLimit: 1024})
		big := strings.Repeat("big\n", 512) // over the limit: uncaptured
		rt.write("a.txt", "one\n")
		rt.snap()
		rt.write("a.txt", "turn 1\n")
		rt.snap()
		rt.write("big.bin", big) // turn 2 makes an uncaptured file
		_, err := rt.repo.Undo(rt.ctx, 1, turnback.UndoOptions{})
		rt.do("undo", err)
		// The after-state holds big.bin uncaptured, and the undo
		// deleted it: restore lists it as not restorable.
		res := rt.wantClosedRestorable(mtree{"a.txt": {kind: mFile, mode: 0o644, data: "turn 1\n"}})
		if got := notePaths(res.NotRestorable); len(got) != 1 || got[0] != "big.bin" {
			t.Fatalf("restore: not restorable %q, want big.bin alone", got)
		}
	})
}

// newRegressTreeWith is newRegressTree with options o (store and lock
// wait set here).
func newRegressTreeWith(t *testing.T, o turnback.Options) *regressTree {
	t.Helper()
	rt := &regressTree{t: t, ctx: t.Context(), dir: t.TempDir(), store: t.TempDir()}
	o.Store, o.LockWait = rt.store, -1
	r, err := turnback.Open(rt.ctx, rt.dir, o)
	if err != nil {
		t.Fatal(err)
	}
	rt.repo = r
	t.Cleanup(func() { r.Close() })
	return rt
}

// wantClosedRestorable checks that the newest turn, on the undo or
// the redo stack, was closed by undo at state, and that restore of its
// after-state gives state back after an edit.
func (rt *regressTree) wantClosedRestorable(state mtree) *turnback.RestoreResult {
	rt.t.Helper()
	turns, redo, err := rt.repo.Turns(rt.ctx)
	rt.do("turns", err)
	all := append(redo, turns...)
	var last *turnback.Turn
	for _, tn := range all {
		if last == nil || tn.N > last.N {
			last = tn
		}
	}
	if last == nil || last.ClosedBy != "undo" {
		rt.t.Fatalf("turns %+v redo %+v: want the newest closed by undo", turns, redo)
	}
	id := last.After.String()
	_, err = rt.repo.Show(rt.ctx, id)
	rt.do("show the closed turn's after-state "+id[:12], err)
	rt.write("a.txt", "later\n")
	rt.do("rm", os.RemoveAll(rt.path("b.txt")))
	res, err := rt.repo.Restore(rt.ctx, id, turnback.RestoreOptions{})
	rt.do("restore the closed turn's after-state "+id[:12], err)
	rt.want(state)
	return res
}
