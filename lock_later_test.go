package turnback

import (
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
		r := &Repo{repoCore: &repoCore{turn: make(chan struct{}, 1)}}
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
