package turnback

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/turnback/turnback/manifest/treetest"
)

// optreesRepo opens a folder with two closed turns, each changing d/f.
func optreesRepo(t *testing.T) *Repo {
	t.Helper()
	ctx := t.Context()
	work := filepath.Join(t.TempDir(), "work")
	for i := range 20 {
		treetest.Put(t, work, fmt.Sprintf("d/g%02d.txt", i), fmt.Sprintf("g %d\n", i))
	}
	treetest.Put(t, work, "d/f.txt", "v0\n")
	r, err := Open(ctx, work, Options{Store: filepath.Join(t.TempDir(), "store"), Local: true, LockWait: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	for _, v := range []string{"v1\n", "v2\n"} {
		if _, err := r.Snap(ctx, "turn"); err != nil {
			t.Fatal(err)
		}
		treetest.Put(t, work, "d/f.txt", v)
		if _, err := r.End(ctx); err != nil {
			t.Fatal(err)
		}
	}
	return r
}

// TestShareTreesEndWithFailedOperation: an undo that fails in its
// apply, by an error, a panic or a context cancelled there, leaves no
// shared trees behind; the next undo shares afresh and works.
func TestShareTreesEndWithFailedOperation(t *testing.T) {
	for _, how := range []string{"error", "panic", "cancel"} {
		t.Run(how, func(t *testing.T) {
			r := optreesRepo(t)
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			var during bool
			boom := errors.New("injected")
			r.hook = func(step string) error {
				during = during || r.sharedTrees() != nil
				switch how {
				case "panic":
					panic(boom)
				case "cancel":
					cancel()
					return ctx.Err()
				}
				return boom
			}
			func() {
				defer func() {
					if p := recover(); p != nil && p != boom {
						panic(p)
					}
				}()
				if _, err := r.Undo(ctx, 1, UndoOptions{}); err == nil {
					t.Fatal("undo with a failing hook succeeded")
				}
			}()
			if !during {
				t.Fatal("the hook never ran with shared trees: the test proves nothing")
			}
			if r.sharedTrees() != nil {
				t.Fatal("shared trees outlive the failed undo")
			}
			r.hook = nil
			if _, err := r.Undo(t.Context(), 1, UndoOptions{}); err != nil {
				t.Fatalf("undo after the failed one: %v", err)
			}
			if r.sharedTrees() != nil {
				t.Fatal("shared trees after the undo")
			}
		})
	}
}

// TestShareTreesViewsConcurrently: undo, redo and restore of views of
// one Repo, with status, show and gc, run at once (run with -race).
// Each finishes without error, and no shared trees are left.
func TestShareTreesViewsConcurrently(t *testing.T) {
	r := optreesRepo(t)
	ctx := t.Context()
	turns, _, err := r.Turns(ctx)
	if err != nil || len(turns) != 2 {
		t.Fatalf("turns: %v, %v", turns, err)
	}
	first := turns[0].Before.String()
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for w := range 4 {
		v, err := r.View(Options{LockWait: time.Minute})
		if err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 6 {
				var err error
				switch (w + i) % 5 {
				case 0:
					_, err = v.Undo(ctx, 1, UndoOptions{Force: true})
				case 1:
					_, err = v.Redo(ctx, 1, RedoOptions{Force: true})
				case 2:
					_, err = v.Restore(ctx, first, RestoreOptions{})
				case 3:
					_, err = v.Status(ctx)
				default:
					_, err = v.GC(ctx, GCOptions{})
				}
				if err != nil {
					errs <- fmt.Errorf("view %d step %d: %w", w, i, err)
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if r.sharedTrees() != nil {
		t.Fatal("shared trees after every operation ended")
	}
}
