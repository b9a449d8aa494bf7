//go:build linux

package turnback_test

import (
	"testing"

	"github.com/turnback/turnback"
)

// TestIgnoredIgnoreFileRulesWatched: the undo and redo of
// TestUndoIgnoredIgnoreFileRules and TestRedoIgnoredIgnoreFileRules with
// a watcher, whose captures take directories from the one before.
func TestIgnoredIgnoreFileRulesWatched(t *testing.T) {
	t.Run("undo", func(t *testing.T) {
		t.Parallel()
		rt := newRegressTree(t)
		rt.do("watch", rt.repo.Watch(rt.ctx, turnback.WatchOptions{}))
		rt.write(".gitignore", ".ignore\n")
		rt.write("sub/.ignore", "secret\n")
		rt.write("sub/secret", "the user's")
		rt.write("a", "a")
		rt.snap()
		rt.write("sub/.ignore", "")
		rt.write("a", "the agent's")
		rt.end()
		res, err := rt.repo.Undo(rt.ctx, 1, turnback.UndoOptions{})
		rt.do("undo", err)
		if got := rt.read("sub/secret"); got != "the user's" || rt.read("a") != "a" {
			t.Fatalf("after the undo (%+v): sub/secret %q, a %q", res, got, rt.read("a"))
		}
	})
	t.Run("redo", func(t *testing.T) {
		t.Parallel()
		rt := newRegressTree(t)
		rt.do("watch", rt.repo.Watch(rt.ctx, turnback.WatchOptions{}))
		rt.write(".gitignore", ".ignore\n")
		rt.write(".ignore", "")
		rt.write("secret", "the user's")
		rt.write("a", "a")
		rt.snap()
		rt.write(".ignore", "secret\n")
		rt.write("a", "the agent's")
		rt.end()
		_, err := rt.repo.Undo(rt.ctx, 1, turnback.UndoOptions{})
		rt.do("undo", err)
		rt.write(".ignore", "")
		res, err := rt.repo.Redo(rt.ctx, 1, turnback.RedoOptions{Force: true})
		rt.do("redo", err)
		if got := rt.read("secret"); got != "the user's" || rt.read("a") != "the agent's" {
			t.Fatalf("after the redo (%+v): secret %q, a %q", res, got, rt.read("a"))
		}
	})
}
