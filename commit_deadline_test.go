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
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/turnback/turnback"
)

// deadlineCtx is a context whose deadline passes at its n-th Err check:
// from then on Err reports context.DeadlineExceeded and Done is closed, as
// if the hook's time budget ran out at exactly that point.
type deadlineCtx struct {
	context.Context
	left atomic.Int64
	once sync.Once
	done chan struct{}
	// from, if set, makes the deadline pass instead at the first check
	// made from a function whose name contains it.
	from string
}

func newDeadlineCtx(n int64) *deadlineCtx {
	c := &deadlineCtx{Context: context.Background(), done: make(chan struct{})}
	c.left.Store(n)
	return c
}

func (c *deadlineCtx) Done() <-chan struct{} { return c.done }

func (c *deadlineCtx) Err() error {
	if c.from != "" {
		select {
		case <-c.done:
			return context.DeadlineExceeded
		default:
		}
		if !calledFrom(c.from) {
			return nil
		}
		c.left.Store(0)
	}
	if c.left.Add(-1) < 0 {
		c.once.Do(func() { close(c.done) })
		return context.DeadlineExceeded
	}
	return nil
}

// calledFrom reports whether a caller's function name contains name.
// It stands in for a seam cas does not have yet: a fault hook called
// before each database write (as SetFaults is before each pack file
// operation), through which the test would make the deadline pass at the
// first write instead of naming the function that makes it.
func calledFrom(name string) bool {
	pc := make([]uintptr, 32)
	frames := runtime.CallersFrames(pc[:runtime.Callers(2, pc)])
	for {
		f, more := frames.Next()
		if strings.Contains(f.Function, name) {
			return true
		}
		if !more {
			return false
		}
	}
}

// TestDeadlineMidCommit: a command's context (an agent hook's time
// budget) may run out at any point of a snap or an end. Wherever it does,
// the command either records nothing or everything: the session stays
// readable. The common case is a prompt that changed nothing (a question): its end drops the
// turn, deleting its record and rewriting the session's.
func TestDeadlineMidCommit(t *testing.T) {
	t.Parallel()
	for _, step := range []string{"end", "snap"} {
		t.Run(step, func(t *testing.T) {
			t.Parallel()
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
				if n == 0 {
					// The window that matters, hit deterministically: the
					// deadline passes at the commit's second write (the
					// records), after its first (the deletes).
					ctx.from = "(*Badger).Set"
				}
				var cmdErr error
				if step == "end" {
					_, cmdErr = repo.End(ctx)
				} else {
					_, cmdErr = repo.Snap(ctx, "next prompt")
				}
				turns, redo, err := repo.Turns(bg)
				repo.Close()
				if err != nil {
					where := fmt.Sprintf("at check %d", n)
					if ctx.from != "" {
						where = "between the commit's deletes and its records"
					}
					t.Fatalf("%s with the budget running out %s (%v): the session is unreadable: %v", step, where, cmdErr, err)
				}
				if cmdErr == nil {
					if n == 0 {
						continue // the fix made it one write
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
