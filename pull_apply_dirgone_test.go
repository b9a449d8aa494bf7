package turnback_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/turnback/turnback"
	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/internal/testtier"
	"github.com/turnback/turnback/manifest"
)

// TestApplyPulledDirRemovedEdit: the pulled turn removes a directory;
// at each step of the apply the user writes a new file into it. The
// file is afterwards in the folder or in the checkpoint the apply names.
func TestApplyPulledDirRemovedEdit(t *testing.T) {
	testtier.Slow(t)
	world := func(t *testing.T, bucket string) *pullFixture {
		f := newPullFixture(t, bucket)
		f.turnBy(f.a, func(wa string) {
			must(t, os.MkdirAll(filepath.Join(wa, "old", "sub"), 0o755))
			must(t, os.WriteFile(filepath.Join(wa, "old", "a.txt"), []byte("a"), 0o644))
			must(t, os.WriteFile(filepath.Join(wa, "old", "sub", "b.txt"), []byte("b"), 0o644))
		})
		f.pushPull()
		if _, err := f.b.ApplyPulled(t.Context(), "", false); err != nil {
			t.Fatal(err)
		}
		f.turnBy(f.a, func(wa string) { must(t, os.RemoveAll(filepath.Join(wa, "old"))) })
		f.pushPull()
		return f
	}
	f := world(t, "bucket-dirgone-steps")
	var steps []string
	f.b.SetRestoreHook(func(s string) error { steps = append(steps, s); return nil })
	if _, err := f.b.ApplyPulled(t.Context(), "", false); err != nil {
		t.Fatal(err)
	}
	for k, step := range steps {
		for _, p := range []string{"old/user.txt", "old/sub/user.txt"} {
			t.Run(fmt.Sprintf("%02d_%s_%s", k, strings.ReplaceAll(step, " ", "_"), strings.ReplaceAll(p, "/", "_")), func(t *testing.T) {
				ctx := t.Context()
				f := world(t, fmt.Sprintf("bucket-dirgone-%d-%d", k, len(p)))
				full := filepath.Join(f.b.WorkTree(), filepath.FromSlash(p))
				wrote := false
				f.b.SetRestoreHook(func(s string) error {
					if s == step && !wrote {
						if err := os.WriteFile(full, []byte("user"), 0o644); err == nil {
							wrote = true
						}
					}
					return nil
				})
				res, err := f.b.ApplyPulled(ctx, "", false)
				if !wrote {
					t.Skip("the directory was gone at this step")
				}
				var ce *turnback.ConflictError
				if err != nil && !errors.As(err, &ce) {
					t.Fatalf("apply: %v", err)
				}
				if data, err := os.ReadFile(full); err == nil && string(data) == "user" {
					return
				}
				if err != nil {
					t.Fatalf("apply refused (%v) and the file is gone", err)
				}
				e, ferr := manifest.Find(ctx, manifest.NewStoreLoader(f.b.Content()), res.Checkpoint, p)
				if ferr != nil || e == nil || e.Hash != cas.Sum([]byte("user")) {
					t.Fatalf("the user's %s is lost: checkpoint %s has %+v %v; result %+v", p, res.Checkpoint.Short(), e, ferr, res)
				}
			})
		}
	}
}
