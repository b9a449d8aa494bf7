package turnback_test

// What a rule-changing undo records when the user changes the folder
// after its files are in place and before its records are committed:
// at the commit step (the recapture runs right after), or after a
// crash there (recovery recaptures when the next command runs).

import (
	"errors"
	"os"
	"testing"

	"github.com/turnback/turnback"
	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/manifest"
)

// TestSettleKeepsEditsAsChanges: the undo puts back .gitignore
// without "*.log" (un-ignoring old.log) and b. Meanwhile the user
// edits b (written by the undo) and c, deletes d, makes u/1 in a new
// directory and makes n. Status after the undo lists each of those
// and nothing else: old.log, which the rules un-ignored, is part of
// the undo's result.
func TestSettleKeepsEditsAsChanges(t *testing.T) {
	t.Parallel()
	for _, crash := range []bool{false, true} {
		name := "meanwhile"
		if crash {
			name = "after a crash"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			rt := newRegressTree(t)
			rt.write(".gitignore", "")
			rt.write("old.log", "kept")
			rt.write("b", "b0")
			rt.write("c", "c0")
			rt.write("d", "d0")
			rt.snap()
			rt.write(".gitignore", "*.log\n")
			rt.write("b", "b1")
			rt.end()
			edit := func() {
				rt.write("b", "the user's b")
				rt.write("c", "the user's c")
				rt.do("rm d", os.Remove(rt.path("d")))
				rt.write("u/1", "the user's u/1")
				rt.write("n", "the user's n")
			}
			rt.repo.SetRestoreHook(func(step string) error {
				if step != "commit" {
					return nil
				}
				if crash {
					return errors.New("killed at the commit")
				}
				edit()
				return nil
			})
			res, err := rt.repo.Undo(rt.ctx, 1, turnback.UndoOptions{})
			rt.repo.SetRestoreHook(nil)
			if crash {
				if err == nil {
					t.Fatal("undo with a failing commit step succeeded")
				}
				edit()
			} else {
				rt.do("undo", err)
				if e := rt.entryIn(res.Result, "old.log"); e == nil {
					t.Errorf("the undo's result %s lacks old.log, which its rules un-ignore", res.Result.Short())
				}
			}
			st, err := rt.repo.Status(rt.ctx)
			rt.do("status", err)
			got := map[string]manifest.ChangeKind{}
			for _, c := range st.Changes {
				got[c.Path] = c.Kind
			}
			want := map[string]manifest.ChangeKind{
				"b": manifest.Modified, "c": manifest.Modified, "d": manifest.Deleted,
				"u": manifest.Added, "u/1": manifest.Added, "n": manifest.Added,
			}
			if len(got) != len(want) {
				t.Fatalf("status: %v; want %v", got, want)
			}
			for p, k := range want {
				if got[p] != k {
					t.Errorf("status: %s %v; want %v (all: %v)", p, got[p], k, got)
				}
			}
			if g := rt.read(".gitignore"); g != "" {
				t.Errorf(".gitignore %q after the undo", g)
			}
		})
	}
}

// TestSettleKeepsEditInSkippedDir: as TestRestoreMakesInSkippedDir,
// the restore puts back .gitignore and x/a in x/, which the state it
// starts from skipped. The user rewrites x/a at the commit step, before
// the recapture: x/a is the restore's, so status lists it as changed;
// x/b, which the restore did not write, is the capture's.
func TestSettleKeepsEditInSkippedDir(t *testing.T) {
	t.Parallel()
	rt, id := skippedParentTree(t, false)
	rt.repo.SetRestoreHook(func(step string) error {
		if step == "commit" {
			rt.write("x/a", "the user's x/a")
		}
		return nil
	})
	res, err := rt.repo.Restore(rt.ctx, id, turnback.RestoreOptions{})
	rt.repo.SetRestoreHook(nil)
	rt.do("restore", err)
	if e := rt.entryIn(res.Result, "x/b"); e == nil {
		t.Errorf("restore's result %s lacks x/b", res.Result.Short())
	}
	// restore changes no session: compare its result with the folder.
	now, err := cas.ParseHash(rt.snap())
	rt.do("parse", err)
	var diff []string
	err = manifest.Diff(rt.ctx, manifest.NewStoreLoader(rt.repo.Content()), res.Result, now, func(c manifest.Change) error {
		diff = append(diff, c.String())
		return nil
	})
	rt.do("diff", err)
	if len(diff) != 1 || diff[0] != "modified x/a" {
		t.Errorf("the folder after the restore differs from its result by %v; want modified x/a", diff)
	}
}
