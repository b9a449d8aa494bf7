package turnback_test

// A command's context may run out at any point of Snap or End (an agent
// hook's time budget does): the session stays readable and the command
// records all of its outcome or none.

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/turnback/turnback"
	"github.com/turnback/turnback/cas"
)

// deadlineCtx is a context whose deadline passes at its n-th Err check:
// from then on Err reports context.DeadlineExceeded and Done is closed, as
// if the hook's time budget ran out at exactly that point.
type deadlineCtx struct {
	context.Context
	left atomic.Int64
	once sync.Once
	done chan struct{}
}

func newDeadlineCtx(n int64) *deadlineCtx {
	c := &deadlineCtx{Context: context.Background(), done: make(chan struct{})}
	c.left.Store(n)
	return c
}

func (c *deadlineCtx) Done() <-chan struct{} { return c.done }

func (c *deadlineCtx) Err() error {
	if c.left.Add(-1) < 0 {
		c.once.Do(func() { close(c.done) })
		return context.DeadlineExceeded
	}
	return nil
}

// expireAtCommit makes ctx's deadline pass at the first database write
// (Set, Delete or Update: a commit's records) of the store in storeDir,
// through cas's fault seam, which is process-wide (the test using it is
// not parallel), and returns the function that removes the hook and
// reports whether it fired.
func expireAtCommit(ctx *deadlineCtx, storeDir string) (remove func() (fired bool)) {
	ctx.left.Store(1 << 62)
	var hit atomic.Bool
	done := cas.SetFaults(func(op, path string) error {
		if strings.HasPrefix(op, "db") && strings.HasPrefix(path, storeDir) && !hit.Swap(true) {
			ctx.left.Store(0)
		}
		return nil
	})
	return func() bool { done(); return hit.Load() }
}

// TestDeadlineMidCommit: a command's context (an agent hook's time
// budget) may run out at any point of a snap or an end. Wherever it does,
// the command either records nothing or everything: the session stays
// readable. The common case is a prompt that changed nothing (a question): its end drops the
// turn, deleting its record and rewriting the session's.
func TestDeadlineMidCommit(t *testing.T) {
	// Not parallel: the deterministic case uses cas.SetFaults.
	for _, step := range []string{"end", "snap"} {
		t.Run(step, func(t *testing.T) {
			bg := t.Context()
			for n := int64(0); ; n++ {
				dir, store := t.TempDir(), t.TempDir()
				if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("a\n"), 0o644); err != nil {
					t.Fatal(err)
				}
				repo, err := turnback.Open(bg, dir, turnback.Options{Store: store, Session: "s"})
				if err != nil {
					t.Fatal(err)
				}
				// A turn that changed nothing is open.
				if _, err := repo.Snap(bg, "what does this code do?"); err != nil {
					t.Fatal(err)
				}
				ctx := newDeadlineCtx(n)
				remove := func() bool { return true }
				if n == 0 {
					// The window that matters, hit deterministically: the
					// deadline passes at the commit's database write (the
					// dropped turn's deletes and the session's records go
					// in one write; were they two, the second would be
					// where a half-recorded session could appear).
					remove = expireAtCommit(ctx, store)
				}
				var cmdErr error
				if step == "end" {
					_, cmdErr = repo.End(ctx)
				} else {
					_, cmdErr = repo.Snap(ctx, "next prompt")
				}
				if !remove() {
					t.Fatalf("%s: the store's records were never written: the deterministic case tested nothing", step)
				}
				turns, redo, err := repo.Turns(bg)
				repo.Close()
				if err != nil {
					where := fmt.Sprintf("at check %d", n)
					if n == 0 {
						where = "at the commit's database write"
					}
					t.Fatalf("%s with the budget running out %s (%v): the session is unreadable: %v", step, where, cmdErr, err)
				}
				if cmdErr == nil {
					if n == 0 {
						// The commit's write is past the point of no
						// return: it finishes whatever the deadline, and
						// the session (read above) holds all of it.
						continue
					}
					return // every check point was tried
				}
				if !errors.Is(cmdErr, context.DeadlineExceeded) {
					t.Fatalf("%s: %v", step, cmdErr)
				}
				if len(turns) != 1 || !turns[0].Open() || len(redo) != 0 {
					t.Fatalf("%s failed at check %d but changed the turns: %d turns, %d redo", step, n, len(turns), len(redo))
				}
				if n > 10000 {
					t.Fatal("no end to the checks")
				}
			}
		})
	}
}
