package turnback_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/turnback/turnback"
	"github.com/turnback/turnback/internal/remote"
)

// TestApplyPulledEditDuring attacks ApplyPulled: the user writes the
// file the pulled turn changed while the apply runs. Before the commit
// point (a file is being staged) the apply is a conflict and changes
// nothing: the edit stays, the pulled turn stays to apply. At the moment
// the file is replaced, the edit goes into the checkpoint, never lost.
func TestApplyPulledEditDuring(t *testing.T) {
	for _, step := range []string{"stage 0", "place turn.txt"} {
		t.Run(strings.ReplaceAll(step, " ", "_"), func(t *testing.T) {
			f := newPullFixture(t, "bucket-apply-"+strings.ReplaceAll(strings.ReplaceAll(step, " ", "-"), ".", "-"))
			ctx := t.Context()
			f.turn(f.a, "turn.txt", "six")
			if _, err := remote.Push(ctx, f.a, f.c, remote.PushOptions{}); err != nil {
				t.Fatal(err)
			}
			pr, err := remote.Pull(ctx, f.b, f.c, remote.PullOptions{})
			if err != nil || pr.Pending == nil || len(pr.Pending.Turns) != 1 || pr.Pending.Turns[0] != 6 || !pr.Pending.AtNewest {
				t.Fatalf("pull: %+v %v", pr, err)
			}
			file := filepath.Join(f.b.WorkTree(), "turn.txt")
			const late = "typed during the apply"
			f.b.SetRestoreHook(func(s string) error {
				if s == step {
					if err := os.WriteFile(file, []byte(late), 0o644); err != nil {
						t.Error(err)
					}
				}
				return nil
			})
			res, err := f.b.ApplyPulled(ctx, "", false)
			f.b.SetRestoreHook(nil)
			got, _ := os.ReadFile(file)
			if step == "stage 0" {
				var ce *turnback.ConflictError
				if !errors.As(err, &ce) || len(res.Conflicts) != 1 || res.Conflicts[0].Path != "turn.txt" || string(got) != late {
					t.Fatalf("apply with an edit while staging: %+v, %v; turn.txt %q", res, err, got)
				}
				if p, err := f.b.Pulled(ctx, ""); err != nil || p == nil {
					t.Fatalf("the refused apply forgot the pulled turn: %+v %v", p, err)
				}
				return
			}
			if err != nil || string(got) != "six" || len(res.Conflicts) != 1 || !strings.Contains(res.Conflicts[0].Reason, "changed while the command ran") {
				t.Fatalf("apply with an edit at the replacement: %+v, %v; turn.txt %q", res, err, got)
			}
			if _, err := f.b.Restore(ctx, res.Checkpoint.String(), turnback.RestoreOptions{}); err != nil {
				t.Fatal(err)
			}
			if got, _ := os.ReadFile(file); string(got) != late {
				t.Fatalf("the checkpoint lacks the edit: %q", got)
			}
		})
	}
}
