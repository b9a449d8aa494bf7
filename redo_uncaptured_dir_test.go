package turnback_test

// review43: redo of a turn whose paths lie in a directory that is
// uncaptured now (a new large directory: its content never stored).

import (
	"fmt"
	"os"
	"slices"
	"testing"

	"github.com/turnback/turnback"
)

// TestRedoInUncapturedDir: a turn creates x/new.txt, or deletes
// x/f001, in x/ (250 files); it is undone. Then x/ leaves the newest
// state (another session's snap while x/ is ignored) and comes back
// (the rule removed): the redo's capture finds x/ a new large
// directory, uncaptured. The redo must then do the turn's change or
// name x/new.txt (x/f001) as not restorable or a conflict. It fails
// with "manifest: edit "x": changes below a dir" (create), or exits 0
// having deleted nothing and said nothing (delete). Both before and
// after the recapture of rule-changing restores (2867e0d).
func TestRedoInUncapturedDir(t *testing.T) {
	t.Parallel()
	for _, kind := range []string{"create", "delete"} {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			rt := newRegressTree(t)
			rt.write(".gitignore", "")
			for i := range 250 {
				rt.write(fmt.Sprintf("x/f%03d", i), fmt.Sprintf("f%d", i))
			}
			rt.snap()
			p := "x/new.txt"
			if kind == "create" {
				rt.write(p, "the turn's")
			} else {
				p = "x/f001"
				rt.do("rm", os.Remove(rt.path(p)))
			}
			rt.end()
			_, err := rt.repo.Undo(rt.ctx, 1, turnback.UndoOptions{})
			rt.do("undo", err)
			rt.write(".gitignore", "x/\n")
			other, err := rt.repo.View(turnback.Options{Session: "other"})
			rt.do("view", err)
			_, err = other.Snap(rt.ctx, "x/ ignored")
			rt.do("snap of the other session", err)
			_, err = other.End(rt.ctx)
			rt.do("end of the other session", err)
			rt.write(".gitignore", "")
			res, err := rt.repo.Redo(rt.ctx, 1, turnback.RedoOptions{Force: true})
			if err != nil {
				t.Fatalf("redo --force: %v", err)
			}
			_, statErr := os.Lstat(rt.path(p))
			done := (kind == "create") == (statErr == nil)
			named := slices.ContainsFunc(res.NotRestorable, func(n turnback.PathNote) bool { return n.Path == p || n.Path == "x" }) ||
				slices.ContainsFunc(res.Conflicts, func(n turnback.PathNote) bool { return n.Path == p })
			if !done && !named {
				t.Errorf("redo --force exited 0 with %s as before the redo, not named: %+v", p, res)
			}
		})
	}
}
