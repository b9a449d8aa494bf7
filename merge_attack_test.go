package turnback_test

// Attacks on undo --merge: an edit made while the merge runs, and one
// made at the moment the merged file replaces the file, are never lost.

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/turnback/turnback"
)

func mergeLines(repl map[int]string) string {
	var b strings.Builder
	for i := 1; i <= 50; i++ {
		if s, ok := repl[i]; ok {
			b.WriteString(s + "\n")
		} else {
			fmt.Fprintf(&b, "line %d\n", i)
		}
	}
	return b.String()
}

// mergeSetup: the agent changed line 40 of m.txt in a turn, the user
// line 2 since.
func mergeSetup(t *testing.T) *regressTree {
	rt := newRegressTree(t)
	rt.write("m.txt", mergeLines(nil))
	rt.snap()
	rt.write("m.txt", mergeLines(map[int]string{40: "agent 40"}))
	rt.end()
	rt.write("m.txt", mergeLines(map[int]string{2: "user 2", 40: "agent 40"}))
	return rt
}

// TestMergeEditDuringMerge: the user writes the file after the undo read
// it and merged it: the restore's last look finds the file changed, the
// undo is a conflict and changes nothing, the turn stays undoable.
func TestMergeEditDuringMerge(t *testing.T) {
	rt := mergeSetup(t)
	late := mergeLines(map[int]string{2: "user 2", 3: "typed during the merge", 40: "agent 40"})
	rt.repo.SetRestoreHook(func(step string) error {
		if step == "merge m.txt" {
			rt.write("m.txt", late)
		}
		return nil
	})
	res, err := rt.repo.Undo(rt.ctx, 1, turnback.UndoOptions{Merge: turnback.MergeClean})
	rt.repo.SetRestoreHook(nil)
	var ce *turnback.ConflictError
	if !errors.As(err, &ce) || len(res.Conflicts) != 1 || res.Conflicts[0].Path != "m.txt" {
		t.Fatalf("undo --merge with an edit during the merge: %+v, %v", res, err)
	}
	if got := rt.read("m.txt"); got != late {
		t.Fatalf("the edit made during the merge is gone: %q", got)
	}
	turns, redo, err := rt.repo.Turns(rt.ctx)
	if err != nil || len(turns) != 1 || len(redo) != 0 {
		t.Fatalf("the refused undo changed the stacks: %d turns, %d redo, %v", len(turns), len(redo), err)
	}
	// Merged again, the late edit is kept too.
	if _, err := rt.repo.Undo(rt.ctx, 1, turnback.UndoOptions{Merge: turnback.MergeClean}); err != nil {
		t.Fatal(err)
	}
	if got, want := rt.read("m.txt"), mergeLines(map[int]string{2: "user 2", 3: "typed during the merge"}); got != want {
		t.Fatalf("second merge: %q, want %q", got, want)
	}
}

// TestMergeEditAtReplacement: an edit that lands after the last look,
// just before the merged file is put in place, is displaced into the
// checkpoint: restoring the checkpoint brings it back, and redo too.
func TestMergeEditAtReplacement(t *testing.T) {
	for _, force := range []bool{false, true} {
		t.Run(fmt.Sprintf("force=%v", force), func(t *testing.T) {
			rt := mergeSetup(t)
			late := mergeLines(map[int]string{2: "user 2", 3: "typed at the last moment", 40: "agent 40"})
			rt.repo.SetRestoreHook(func(step string) error {
				if step == "place m.txt" {
					rt.write("m.txt", late)
				}
				return nil
			})
			res, err := rt.repo.Undo(rt.ctx, 1, turnback.UndoOptions{Merge: turnback.MergeClean, Force: force})
			rt.repo.SetRestoreHook(nil)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := rt.read("m.txt"), mergeLines(map[int]string{2: "user 2"}); got != want {
				t.Fatalf("after the merge m.txt is %q, want %q", got, want)
			}
			if len(res.Conflicts) != 1 || !strings.Contains(res.Conflicts[0].Reason, "changed while the command ran") {
				t.Fatalf("the displaced edit is not reported: %+v", res.Conflicts)
			}
			if _, err := rt.repo.Redo(rt.ctx, 1, turnback.RedoOptions{}); err != nil {
				t.Fatal(err)
			}
			if got := rt.read("m.txt"); got != late {
				t.Fatalf("redo after the displaced edit: %q, want %q", got, late)
			}
			if _, err := rt.repo.Restore(rt.ctx, res.Checkpoint.String(), turnback.RestoreOptions{}); err != nil {
				t.Fatal(err)
			}
			if got := rt.read("m.txt"); got != late {
				t.Fatalf("the checkpoint lacks the edit: %q", got)
			}
		})
	}
}
