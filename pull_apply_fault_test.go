package turnback_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"

	"github.com/turnback/turnback"
	"github.com/turnback/turnback/internal/remote"
	"github.com/turnback/turnback/internal/testtier"
)

// applyWorld is a folder b that pulled turns 6 and 7 of session s and
// has not applied them: turn 6 deleted turn.txt and made a.txt, d/new.txt
// and the link ln; turn 7 changed a.txt and made d/e/deep.txt.
type applyWorld struct {
	*pullFixture
	before, after string // folder states without and with the pulled turns
}

func newApplyWorld(t *testing.T, bucket string) *applyWorld {
	t.Helper()
	ctx := t.Context()
	f := newPullFixture(t, bucket)
	w := &applyWorld{pullFixture: f}
	wa := f.a.WorkTree()
	step := func(fn func()) {
		if _, err := f.a.Snap(ctx, ""); err != nil {
			t.Fatal(err)
		}
		fn()
		if _, err := f.a.End(ctx); err != nil {
			t.Fatal(err)
		}
	}
	step(func() {
		must(t, os.Remove(filepath.Join(wa, "turn.txt")))
		must(t, os.WriteFile(filepath.Join(wa, "a.txt"), []byte("a six"), 0o644))
		must(t, os.MkdirAll(filepath.Join(wa, "d"), 0o755))
		must(t, os.WriteFile(filepath.Join(wa, "d", "new.txt"), []byte("new"), 0o600))
		must(t, os.Symlink("a.txt", filepath.Join(wa, "ln")))
	})
	step(func() {
		must(t, os.WriteFile(filepath.Join(wa, "a.txt"), []byte("a seven"), 0o755))
		must(t, os.MkdirAll(filepath.Join(wa, "d", "e"), 0o750))
		must(t, os.WriteFile(filepath.Join(wa, "d", "e", "deep.txt"), []byte("deep"), 0o644))
	})
	w.after = folderState(t, wa)
	if _, err := remote.Push(ctx, f.a, f.c, remote.PushOptions{}); err != nil {
		t.Fatal(err)
	}
	w.before = folderState(t, f.b.WorkTree())
	if pr, err := remote.Pull(ctx, f.b, f.c, remote.PullOptions{}); err != nil || pr.Pending == nil {
		t.Fatalf("pull: %+v %v", pr, err)
	}
	return w
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// folderState is every entry under root but .git: kind, mode, content
// or link target.
func folderState(t *testing.T, root string) string {
	t.Helper()
	var lines []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			lines = append(lines, fmt.Sprintf("%s link %s", rel, target))
		case fi.IsDir():
			lines = append(lines, fmt.Sprintf("%s dir %o", rel, fi.Mode().Perm()))
		default:
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			lines = append(lines, fmt.Sprintf("%s file %o %q", rel, fi.Mode().Perm(), data))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// reopen closes b and opens its store again, as the next command after a
// crash does (recovery runs at open unless deferred).
func (w *applyWorld) reopen(t *testing.T, deferred bool) {
	t.Helper()
	work, store := w.b.WorkTree(), w.b.StoreDir()
	must(t, w.b.Close())
	r, err := turnback.Open(t.Context(), work, turnback.Options{Store: store, Session: "s", DeferRecovery: deferred})
	if err != nil {
		t.Fatalf("reopen: %v", err)
	}
	w.b = r
}

// check says the folder is exactly before (the pulled turns still to
// apply) or exactly after (none left), and verify finds nothing wrong.
func (w *applyWorld) check(t *testing.T, ctx context.Context) string {
	t.Helper()
	got := folderState(t, w.b.WorkTree())
	p, err := w.b.Pulled(ctx, "")
	if err != nil {
		t.Fatalf("pulled: %v", err)
	}
	var which string
	switch got {
	case w.before:
		which = "before"
		if p == nil {
			t.Fatal("folder before the apply, but the store forgot the pulled turns")
		}
	case w.after:
		which = "after"
		if p != nil {
			t.Fatalf("folder after the apply, but the store still lists pulled turns %v", p.Turns)
		}
	default:
		t.Fatalf("folder is neither before nor after the apply:\n%s\nbefore:\n%s\nafter:\n%s", got, w.before, w.after)
	}
	v, err := w.b.Verify(ctx)
	if err != nil || len(v.Problems) > 0 {
		t.Fatalf("verify: %+v %v", v, err)
	}
	st, err := w.b.Status(ctx)
	if err != nil {
		t.Fatalf("status: %v", err)
	}
	if n := len(st.Changes); n != 0 {
		t.Fatalf("status after %s shows %d changes: %+v", which, n, st.Changes)
	}
	return which
}

// applySteps returns the restore steps of a complete apply.
func applySteps(t *testing.T) []string {
	w := newApplyWorld(t, "bucket-apply-steps")
	var steps []string
	w.b.SetRestoreHook(func(s string) error { steps = append(steps, s); return nil })
	if _, err := w.b.ApplyPulled(t.Context(), "", false); err != nil {
		t.Fatal(err)
	}
	w.b.SetRestoreHook(nil)
	if got := w.check(t, t.Context()); got != "after" {
		t.Fatalf("a complete apply left the folder %s", got)
	}
	return steps
}

// TestApplyPulledFaults injects EIO, ENOSPC and EPERM at every step of
// pull --apply, then either reopens the store (the next command, as
// after kill -9) or rolls back: the folder is then exactly before or
// exactly after, the pulled record says the same, and verify passes.
func TestApplyPulledFaults(t *testing.T) {
	testtier.Slow(t)
	steps := applySteps(t)
	errs := []error{syscall.EIO, syscall.ENOSPC, syscall.EPERM}
	for k, step := range steps {
		for _, rollback := range []bool{false, true} {
			name := fmt.Sprintf("%02d_%s_rollback=%v", k, strings.ReplaceAll(step, " ", "_"), rollback)
			t.Run(name, func(t *testing.T) {
				ctx := t.Context()
				w := newApplyWorld(t, fmt.Sprintf("bucket-fault-%d-%v", k, rollback))
				fault := errs[k%len(errs)]
				w.b.SetRestoreHook(func(s string) error {
					if s == step {
						return &fs.PathError{Op: "inject", Path: s, Err: fault}
					}
					return nil
				})
				_, err := w.b.ApplyPulled(ctx, "", false)
				w.b.SetRestoreHook(nil)
				if err == nil {
					t.Fatalf("a fault at %q: no error", step)
				}
				unfinished := errors.Is(err, turnback.ErrUnfinished)
				w.reopen(t, rollback)
				finished := false
				if rollback && unfinished {
					_, err := w.b.Recover(ctx, true)
					finished = errors.Is(err, turnback.ErrNothingToRollBack)
					if err != nil && !finished {
						t.Fatalf("recover --rollback: %v", err)
					}
				}
				which := w.check(t, ctx)
				if rollback && unfinished && !finished && which != "before" {
					t.Fatalf("rolled back, but the folder is %s", which)
				}
				if finished && which != "after" {
					t.Fatalf("recover --rollback said the apply was finished, but the folder is %s", which)
				}
				if !unfinished && which != "before" {
					t.Fatalf("apply failed before its commit point (%v), yet the folder is %s", err, which)
				}
				if which == "before" {
					if _, err := w.b.ApplyPulled(ctx, "", false); err != nil {
						t.Fatalf("apply again: %v", err)
					}
					if w.check(t, ctx) != "after" {
						t.Fatal("apply again did not apply")
					}
				}
			})
		}
	}
}
