package turnback_test

import (
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/internal/testtier"
	"github.com/turnback/turnback/manifest"
)

// TestApplyPulledStoreFull: the store's disk fills up (ENOSPC on every
// pack write and database write) from the commit point of pull --apply
// on, while the user edits a.txt at the moment it is replaced. After
// the space comes back and the store is opened again, verify passes
// and the edit is in the folder or in a listed checkpoint (the one the
// apply named, if it named one).
func TestApplyPulledStoreFull(t *testing.T) {
	testtier.Slow(t) // not parallel: cas.SetFaults is process-wide
	for _, from := range []string{"journal", "place a.txt", "commit"} {
		for _, op := range []string{"write", "dbset", "dbupdate"} {
			t.Run(fmt.Sprintf("%s_from_%s", op, from), func(t *testing.T) {
				ctx := t.Context()
				w := newApplyWorld(t, fmt.Sprintf("bucket-full-%d-%d", len(from), len(op)))
				var full atomic.Bool
				remove := cas.SetFaults(func(o, _ string) error {
					if full.Load() && o == op {
						return syscall.ENOSPC
					}
					return nil
				})
				defer remove()
				a := filepath.Join(w.b.WorkTree(), "a.txt")
				const edit = "the user's a.txt"
				w.b.SetRestoreHook(func(s string) error {
					if s == from {
						full.Store(true)
					}
					if s == "place a.txt" {
						_ = os.WriteFile(a, []byte(edit), 0o644)
					}
					return nil
				})
				res, err := w.b.ApplyPulled(ctx, "", false)
				t.Logf("apply with a full disk: %v", err)
				w.b.SetRestoreHook(nil)
				remove()
				w.reopen(t, false)
				if v, err := w.b.Verify(ctx); err != nil || len(v.Problems) > 0 {
					t.Fatalf("verify: %+v %v", v, err)
				}
				if data, err := os.ReadFile(a); err == nil && string(data) == edit {
					return
				}
				cps, err := w.b.Checkpoints(ctx)
				if err != nil {
					t.Fatal(err)
				}
				l := manifest.NewStoreLoader(w.b.Content())
				for _, c := range cps {
					h, _ := cas.ParseHash(c.ID)
					if e, err := manifest.Find(ctx, l, h, "a.txt"); err == nil && e != nil && e.Hash == cas.Sum([]byte(edit)) {
						if res != nil && !res.Checkpoint.IsZero() && res.Checkpoint != h {
							t.Errorf("the edit is in checkpoint %s, the apply named %s", h.Short(), res.Checkpoint.Short())
						}
						return
					}
				}
				t.Fatalf("the user's edit of a.txt is lost (apply: %v)", err)
			})
		}
	}
}
