//go:build linux

package turnback

import (
	"path/filepath"
	"testing"
)

// TestResultRulesWatched: undo, redo and restore that toggle ignore
// rules over files the user edited while they were hidden, with and
// without a watcher: each one's result is what a full walk of the
// folder gives right after it.
func TestResultRulesWatched(t *testing.T) {
	for _, tc := range []struct{ name, file, rule string }{
		{"gitignore dir", ".gitignore", "x/\n"},
		{"gitignore glob", ".gitignore", "*.dat\n"},
		{"nested", "x/.gitignore", "*\n!.gitignore\n"},
	} {
		for _, watch := range []bool{false, true} {
			name := tc.name
			if watch {
				name += " watched"
			}
			t.Run(name, func(t *testing.T) {
				ctx := t.Context()
				wt, store := t.TempDir(), t.TempDir()
				w := func(rel, data string) { writeFile(t, filepath.Join(wt, rel), data) }
				w("a.txt", "a")
				w("x/a.dat", "a0")
				w("x/sub/b.dat", "b0")
				if tc.file == "x/.gitignore" {
					w(tc.file, "")
				}
				r, err := Open(ctx, wt, Options{Store: store, LockWait: -1})
				if err != nil {
					t.Fatal(err)
				}
				defer r.Close()
				if watch {
					if err := r.Watch(ctx, WatchOptions{}); err != nil {
						t.Fatal(err)
					}
				}
				check := func(what string, res *RestoreResult, err error) {
					t.Helper()
					if err != nil {
						t.Fatalf("%s: %v", what, err)
					}
					if want := fullWalkOf(t, wt).Root; res.Result != want {
						t.Fatalf("%s left %s, a full walk after it gives %s", what, res.Result.Short(), want.Short())
					}
				}
				first, err := r.Snap(ctx, "before")
				if err != nil {
					t.Fatal(err)
				}
				w(tc.file, tc.rule)
				w("a.txt", "the agent's")
				if _, err := r.End(ctx); err != nil {
					t.Fatal(err)
				}
				w("x/a.dat", "a1, hidden")
				u, err := r.Undo(ctx, 1, UndoOptions{})
				check("undo", u, err)
				w("x/sub/b.dat", "b2, shown")
				rd, err := r.Redo(ctx, 1, RedoOptions{})
				check("redo", rd, err)
				w("x/sub/b.dat", "b3, hidden")
				rs, err := r.Restore(ctx, first.Snapshot.String(), RestoreOptions{})
				check("restore", rs, err)
			})
		}
	}
}
