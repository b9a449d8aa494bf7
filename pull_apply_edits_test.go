package turnback_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/turnback/turnback"
	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/internal/testtier"
	"github.com/turnback/turnback/manifest"
)

// TestApplyPulledRandomEdits writes a path at a random step of pull
// --apply (seeded schedule: the path, the step, --force or not): what
// the user wrote is afterwards in the folder or in the checkpoint the
// apply returned, and verify passes.
func TestApplyPulledRandomEdits(t *testing.T) {
	testtier.Slow(t)
	steps := applySteps(t)
	paths := []string{"turn.txt", "a.txt", "d/new.txt", "ln", "d/e/deep.txt", "d/mine.txt", "mine.txt"}
	const iterations = 40
	for i := range iterations {
		rng := rand.New(rand.NewPCG(20261128, uint64(i)))
		step := steps[rng.IntN(len(steps))]
		p := paths[rng.IntN(len(paths))]
		force := rng.IntN(2) == 0
		t.Run(fmt.Sprintf("%02d_%s_at_%s_force=%v", i, strings.ReplaceAll(p, "/", "_"), strings.ReplaceAll(step, " ", "_"), force), func(t *testing.T) {
			ctx := t.Context()
			w := newApplyWorld(t, fmt.Sprintf("bucket-edit-%d", i))
			work := w.b.WorkTree()
			content := fmt.Sprintf("typed by the user, iteration %d", i)
			wrote := false
			w.b.SetRestoreHook(func(s string) error {
				if s != step || wrote {
					return nil
				}
				wrote = true
				full := filepath.Join(work, filepath.FromSlash(p))
				if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
					t.Logf("mkdir at %s: %v", s, err)
					wrote = false
					return nil
				}
				_ = os.Remove(full) // a link or a file: replaced by the user's file
				if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
					t.Logf("write at %s: %v", s, err)
					wrote = false
				}
				return nil
			})
			res, err := w.b.ApplyPulled(ctx, "", force)
			w.b.SetRestoreHook(nil)
			if !wrote {
				t.Skip("the edit could not be made at this step")
			}
			var ce *turnback.ConflictError
			if err != nil && !errors.As(err, &ce) {
				t.Fatalf("apply: %v", err)
			}
			data, rerr := os.ReadFile(filepath.Join(work, filepath.FromSlash(p)))
			if rerr == nil && string(data) == content {
				return // in the folder
			}
			if err != nil {
				t.Fatalf("apply refused (%v) and the edit is not in the folder: %q %v", err, data, rerr)
			}
			if res.Checkpoint.IsZero() {
				t.Fatalf("the edit is not in the folder (%q %v) and the apply names no checkpoint: %+v", data, rerr, res)
			}
			e, ferr := manifest.Find(ctx, manifest.NewStoreLoader(w.b.Content()), res.Checkpoint, p)
			if ferr != nil || e == nil || e.Hash != cas.Sum([]byte(content)) {
				t.Fatalf("the edit of %s is lost: folder %q %v; checkpoint %s has %+v %v; conflicts %+v",
					p, data, rerr, res.Checkpoint.Short(), e, ferr, res.Conflicts)
			}
			if len(res.Conflicts) == 0 {
				t.Fatalf("the edit of %s went into the checkpoint unreported", p)
			}
			if v, err := w.b.Verify(ctx); err != nil || len(v.Problems) > 0 {
				t.Fatalf("verify: %+v %v", v, err)
			}
		})
	}
}
