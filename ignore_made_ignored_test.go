package turnback_test

import (
	"os"
	"testing"

	"github.com/turnback/turnback"
)

// TestUndoMakesPathIgnoredNow (found by TestRandomResultIsTheFolder,
// seed 6562465563202262377): turn 1 deletes x/d.log; it is undone and
// redone; then the user, outside any turn, ignores *.log. Undoing turn
// 1 brings x/d.log back (nothing is there), but the rules now ignore
// it: the state the undo leaves must not hold it, or status reports
// it deleted and a restore of that state would take it for a file.
func TestUndoMakesPathIgnoredNow(t *testing.T) {
	t.Parallel()
	rt := newRegressTree(t)
	rt.write(".gitignore", "")
	for _, f := range []string{"a", "x/a", "a.log", "x/d.log"} {
		rt.write(f, f+" 0")
	}
	rt.snap()
	rt.do("rm", os.Remove(rt.path("x/d.log")))
	rt.snap()
	_, err := rt.repo.Undo(rt.ctx, 1, turnback.UndoOptions{Force: true})
	rt.do("undo", err)
	rt.snap()
	_, err = rt.repo.Redo(rt.ctx, 1, turnback.RedoOptions{Force: true})
	rt.do("redo", err)
	rt.write("a", "a 9")
	rt.write(".gitignore", "*.log\n")
	rt.snap()
	res, err := rt.repo.Undo(rt.ctx, 1, turnback.UndoOptions{Force: true})
	rt.do("undo of turn 1", err)
	if got := rt.read("x/d.log"); got != "x/d.log 0" {
		t.Fatalf("x/d.log holds %q after the undo (%+v)", got, res)
	}
	st, err := rt.repo.Status(rt.ctx)
	rt.do("status", err)
	if st.Base != res.Result || len(st.Changes) > 0 {
		t.Fatalf("the undo left %s; status: base %s, changes %+v", res.Result.Short(), st.Base.Short(), st.Changes)
	}
}
