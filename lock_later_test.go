package turnback

import (
	"errors"
	"sync/atomic"
	"testing"
	"time"
)

// TestLaterBeforeNextOperation: work an operation leaves for its end
// (later) runs before the next operation takes the store, whether it
// runs before unlock returns (a process that exits) or after (a watching
// Repo: the daemon answers first).
func TestLaterBeforeNextOperation(t *testing.T) {
	for _, watching := range []bool{false, true} {
		r := &Repo{repoCore: &repoCore{storeLock: make(chan struct{}, 1)}}
		if watching {
			r.watch = &watchState{}
		}
		if err := r.acquire(t.Context()); err != nil {
			t.Fatal(err)
		}
		release := make(chan struct{})
		var done atomic.Bool
		r.later(func() {
			<-release
			done.Store(true)
		})
		if !watching {
			close(release) // unlock runs the work itself
		}
		r.unlock()
		if !watching && !done.Load() {
			t.Fatal("unlock returned before the work left for it ran")
		}
		next := make(chan bool)
		go func() {
			if err := r.acquire(t.Context()); err != nil {
				t.Error(err)
			}
			next <- done.Load()
		}()
		if watching {
			select {
			case <-next:
				t.Fatal("the next operation took the store while the last one's work ran")
			case <-time.After(20 * time.Millisecond):
			}
			close(release)
		}
		if ran := <-next; !ran {
			t.Fatalf("watching=%v: the next operation took the store before the work ran", watching)
		}
		r.unlock()
	}
}

// TestLaterNotBusy: a view that allows no wait at all (LockWait < 0,
// TURNBACK_LOCK_WAIT=0) and comes while the daemon finishes the work
// the last operation left for later waits for that work instead of
// failing with ErrBusy (seen as "snap: exit 4 ... held by turnback undo"
// in TestDaemonRandomOps); an operation that still runs makes it fail
// at once, as before.
func TestLaterNotBusy(t *testing.T) {
	r := &Repo{repoCore: &repoCore{storeLock: make(chan struct{}, 1), watch: &watchState{}}}
	view := &Repo{repoCore: r.repoCore, view: true, opts: Options{LockWait: -1}}
	if err := r.acquire(t.Context()); err != nil {
		t.Fatal(err)
	}
	if err := view.acquire(t.Context()); !errors.Is(err, ErrBusy) {
		t.Fatalf("while an operation runs: %v, want ErrBusy", err)
	}
	release := make(chan struct{})
	var done atomic.Bool
	r.later(func() {
		<-release
		done.Store(true)
	})
	r.unlock() // answered; the work runs on
	got := make(chan error, 1)
	go func() { got <- view.acquire(t.Context()) }()
	select {
	case err := <-got:
		t.Fatalf("the view did not wait for the work left for later: %v", err)
	case <-time.After(20 * time.Millisecond):
	}
	close(release)
	if err := <-got; err != nil {
		t.Fatalf("after the work: %v", err)
	}
	if !done.Load() {
		t.Fatal("the view took the store before the work ran")
	}
	view.unlock()
}
