//go:build linux

package turnback

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// TestIgnoreTurnUndoRedoEdits toggles ignore rules by undo and redo,
// with edits by the user to the files those rules hide or show, with
// and without a watcher. Every snap, and every checkpoint must be what a full walk of the folder gives at that moment.
func TestIgnoreTurnUndoRedoEdits(t *testing.T) {
	for _, tc := range []struct{ name, file, rule, dir string }{
		{"gitignore dir", ".gitignore", "x/\n", "x"},
		{"gitignore file glob", ".gitignore", "*.dat\n", "x"},
		{"ignore", ".ignore", "x\n", "x"},
		{"turnbackignore", ".turnbackignore", "x/\n", "x"},
		{"nested gitignore", "x/.gitignore", "*\n!.gitignore\n", "x"},
		{"negation", ".turnbackignore", "!x/\n", "x"},
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
				if tc.name == "negation" {
					w(".gitignore", "x/\n")
				}
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
				check := func(what string, got interface{ String() string }) {
					t.Helper()
					if want := fullWalkOf(t, wt); got.String() != want.Root.String() {
						t.Fatalf("%s = %.12s, a full walk gives %.12s", what, got.String(), want.Root.String())
					}
				}
				res, err := r.Snap(ctx, "before")
				if err != nil {
					t.Fatal(err)
				}
				check("snap before", res.Snapshot)
				w(tc.file, tc.rule)
				w("a.txt", "the agent's")
				e, err := r.End(ctx)
				if err != nil {
					t.Fatal(err)
				}
				check("end", e.Snapshot)
				// The user edits files hidden or shown now.
				w("x/a.dat", "a1 the user's")
				w("x/sub/new.dat", "new1")
				want := fullWalkOf(t, wt).Root
				u, err := r.Undo(ctx, 1, UndoOptions{})
				if err != nil {
					t.Fatal(err)
				}
				if u.Checkpoint != want {
					t.Fatalf("undo's checkpoint %s, a full walk before it %s", u.Checkpoint.Short(), want.Short())
				}
				if got := readString(t, filepath.Join(wt, "x/a.dat")); got != "a1 the user's" {
					t.Fatalf("undo: x/a.dat holds %q (%+v)", got, u)
				}
				w("x/a.dat", "a2 the user's")
				w("x/sub/b.dat", "b2")
				if err := os.Remove(filepath.Join(wt, "x/sub/new.dat")); err != nil {
					t.Fatal(err)
				}
				s, err := r.Snap(ctx, "after the undo")
				if err != nil {
					t.Fatal(err)
				}
				check("snap after the undo", s.Snapshot)
				if _, err := r.End(ctx); err != nil {
					t.Fatal(err)
				}
				// A turn that changed nothing keeps the redo.
				want = fullWalkOf(t, wt).Root
				rd, err := r.Redo(ctx, 1, RedoOptions{})
				if err != nil {
					t.Fatal(err)
				}
				if rd.Checkpoint != want {
					t.Fatalf("redo's checkpoint %s, a full walk before it %s (%+v)", rd.Checkpoint.Short(), want.Short(), rd)
				}
				if got := readString(t, filepath.Join(wt, "x/a.dat")); got != "a2 the user's" {
					t.Fatalf("redo: x/a.dat holds %q (%+v)", got, rd)
				}
				w("x/sub/b.dat", "b3")
				w("x/c.dat", "c3")
				s, err = r.Snap(ctx, "after the redo")
				if err != nil {
					t.Fatal(err)
				}
				check("snap after the redo", s.Snapshot)
			})
		}
	}
}

func readString(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		return "<" + err.Error() + ">"
	}
	return string(b)
}

// TestIgnoreRestoreThenSnap: a restore that un-ignores or re-ignores a
// directory holding edits made meanwhile; the next snap, watched or
// not, must be what a full walk gives, and so must restore's
// checkpoint.
func TestIgnoreRestoreThenSnap(t *testing.T) {
	for _, rule := range []string{"x/\n", "*.dat\n"} {
		for _, watch := range []bool{false, true} {
			for _, toIgnored := range []bool{false, true} {
				t.Run(fmt.Sprintf("%q watch %v to ignored %v", rule, watch, toIgnored), func(t *testing.T) {
					ctx := t.Context()
					wt, store := t.TempDir(), t.TempDir()
					w := func(rel, data string) { writeFile(t, filepath.Join(wt, rel), data) }
					w("a.txt", "a")
					w("x/a.dat", "a0")
					first, second := rule, ""
					if toIgnored {
						first, second = "", rule
					}
					w(".gitignore", first)
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
					s1, err := r.Snap(ctx, "one")
					if err != nil {
						t.Fatal(err)
					}
					w(".gitignore", second)
					w("x/a.dat", "a1")
					if _, err := r.Snap(ctx, "two"); err != nil {
						t.Fatal(err)
					}
					w("x/a.dat", "a2 the user's")
					w("x/b.dat", "b2 the user's")
					want := fullWalkOf(t, wt).Root
					res, err := r.Restore(ctx, s1.Snapshot.String(), RestoreOptions{})
					if err != nil {
						t.Fatal(err)
					}
					if res.Checkpoint != want {
						t.Fatalf("restore's checkpoint %s, a full walk before it %s", res.Checkpoint.Short(), want.Short())
					}
					w("x/b.dat", "b3 the user's")
					s, err := r.Snap(ctx, "after")
					if err != nil {
						t.Fatal(err)
					}
					if want := fullWalkOf(t, wt).Root; s.Snapshot != want {
						t.Fatalf("snap after the restore %s, a full walk %s (restore %+v)", s.Snapshot.Short(), want.Short(), res)
					}
				})
			}
		}
	}
}
