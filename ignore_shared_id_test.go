package turnback_test

// Two captures of one tree share its id, and so its snapshot record,
// though what they skipped may differ: an ignored .ignore with other
// rules, a directory skipped for its CACHEDIR.TAG that is later gone.
// The record must not forget what the first capture skipped: a restore
// or undo to that id then leaves alone what the id was printed for.

import (
	"os"
	"slices"
	"testing"

	"github.com/turnback/turnback"
	"github.com/turnback/turnback/internal/model"
)

// sharedIDCase makes a folder whose capture skips path, then one of
// the same tree where nothing skips it, then the user's file at path.
type sharedIDCase struct {
	name  string
	first func(rt *regressTree) // the folder of the first capture
	again func(rt *regressTree) // the same tree, path not skipped
	path  string                // what the first capture skipped
}

var sharedIDCases = []sharedIDCase{
	{
		name: "ignored ignore file",
		first: func(rt *regressTree) {
			rt.write(".gitignore", ".ignore\n")
			rt.write(".ignore", "secret\n")
			rt.write("secret", "the user's")
		},
		again: func(rt *regressTree) {
			rt.write(".ignore", "")
			rt.do("rm", os.Remove(rt.path("secret")))
		},
		path: "secret",
	},
	{
		name: "generated directory",
		first: func(rt *regressTree) {
			rt.write("cache/CACHEDIR.TAG", "Signature: 8a477f597d28d172789f06886806bc55\n")
			rt.write("cache/keep", "the user's")
		},
		again: func(rt *regressTree) {
			rt.do("rm", os.RemoveAll(rt.path("cache")))
		},
		path: "cache/keep",
	},
}

// TestRestoreSharedIDKeepsFirstSkips: snap prints id T while the
// folder skips path. Later the same tree T is captured again without
// it, and the user makes path again. restore T must leave path alone
// and say so: T's first capture skipped it.
func TestRestoreSharedIDKeepsFirstSkips(t *testing.T) {
	for _, c := range sharedIDCases {
		for _, reopen := range []bool{false, true} {
			t.Run(c.name+map[bool]string{false: ", one process", true: ", reopened"}[reopen], func(t *testing.T) {
				t.Parallel()
				rt := newRegressTree(t)
				c.first(rt)
				rt.write("a", "a")
				id := rt.snap()
				rt.end()
				c.again(rt)
				if again := rt.snap(); again != id {
					t.Fatalf("the second capture is %s; want the same tree %s", again, id)
				}
				rt.end()
				rt.write(c.path, "the user's, made again")
				rt.write("a", "later")
				if reopen {
					rt.reopen()
				}
				res, err := rt.repo.Restore(rt.ctx, id, turnback.RestoreOptions{})
				rt.do("restore", err)
				if got := rt.read(c.path); got != "the user's, made again" {
					t.Fatalf("%s, skipped by the first capture of %s, holds %q after its restore (%+v)", c.path, id[:12], got, res)
				}
				if got := rt.read("a"); got != "a" {
					t.Fatalf("a holds %q after the restore", got)
				}
				if !slices.ContainsFunc(res.NotRestorable, func(n model.PathNote) bool { return n.Path == c.path && n.Kept }) {
					t.Fatalf("the restore does not say it left %s as is: %+v", c.path, res.NotRestorable)
				}
			})
		}
	}
}

// TestUndoSharedIDKeepsFirstSkips: turn 1 starts at T, whose capture
// skips path, and makes path captured. Another session captures the
// same tree T without path. With the folder at turn 1's end again, the
// undo of turn 1 goes to T: it must leave path alone, as it does when
// no other capture of T was made (TestUndoIgnoredIgnoreFileRules).
func TestUndoSharedIDKeepsFirstSkips(t *testing.T) {
	for _, c := range sharedIDCases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			rt := newRegressTree(t)
			c.first(rt)
			rt.write("a", "a")
			id := rt.snap()
			// The turn makes path captured: ignored no more.
			switch c.path {
			case "secret":
				rt.write(".ignore", "")
			default:
				rt.do("rm", os.Remove(rt.path("cache/CACHEDIR.TAG")))
			}
			rt.write("a", "the agent's")
			rt.end()
			// The same tree in another session.
			rt.repo.Close()
			other, err := turnback.Open(rt.ctx, rt.dir, turnback.Options{Store: rt.store, LockWait: -1, Session: "other"})
			rt.do("open session other", err)
			c.again(rt)
			rt.write("a", "a")
			res, err := other.Snap(rt.ctx, "")
			rt.do("snap in session other", err)
			if res.Snapshot.String() != id {
				t.Fatalf("session other captured %s; want the same tree %s", res.Snapshot, id)
			}
			_, err = other.End(rt.ctx)
			rt.do("end in session other", err)
			other.Close()
			// The folder as turn 1 left it.
			rt.write(c.path, "the user's")
			rt.write("a", "the agent's")
			rt.reopen()
			ures, err := rt.repo.Undo(rt.ctx, 1, turnback.UndoOptions{})
			rt.do("undo", err)
			if got := rt.read(c.path); got != "the user's" {
				t.Fatalf("%s, skipped at turn 1's start, holds %q after its undo (%+v)", c.path, got, ures)
			}
			if got := rt.read("a"); got != "a" {
				t.Fatalf("a holds %q after the undo", got)
			}
		})
	}
}
