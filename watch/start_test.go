//go:build linux

package watch

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"
)

// startBlockedAtB starts a watcher (options o) on a new tree of three
// directories, a, b and c, and returns once its build is held just
// before it watches b; closing release lets it go on, and started
// then gets Start's result.
func startBlockedAtB(t *testing.T, o Options) (dir string, w *Watcher, release chan struct{}, started chan error) {
	t.Helper()
	dir = t.TempDir()
	for _, rel := range []string{"a/f", "b/g", "c/h"} {
		put(t, dir, rel, rel)
	}
	w, err := New(dir, o)
	must(t, err)
	t.Cleanup(func() { w.Close() })
	blocked := make(chan struct{})
	release = make(chan struct{})
	var once sync.Once
	w.addHook = func(rel string) error {
		if rel == "b" {
			once.Do(func() { close(blocked); <-release })
		}
		return nil
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	started = make(chan error, 1)
	go func() { started <- w.Start(ctx) }()
	<-blocked
	return dir, w, release, started
}

// TestTakeDuringFirstBuild: a Take while Start still builds the watches
// is Full and does not count as the first Take (a capture after it
// would start before every directory is watched): the Take after Start
// returned is Full too, and only the next one reports changes
// precisely. The root's identity, not taken yet, is no doubt either.
func TestTakeDuringFirstBuild(t *testing.T) {
	dir, w, release, started := startBlockedAtB(t, Options{Logf: t.Logf})
	for range 2 {
		if ch := w.Take(); !ch.Full {
			t.Fatalf("Take during the first build: %+v; want Full", ch)
		}
	}
	close(release)
	must(t, <-started)
	if ch := settled(t, w); !ch.Full || ch.Reason != notTaken {
		t.Fatalf("first Take after Start: %+v; want Full (%s)", ch, notTaken)
	}
	put(t, dir, "c/new", "x")
	if ch := settled(t, w); ch.Full || len(ch.Dirs) != 1 || !ch.Dirs["c"] {
		t.Fatalf("second Take after Start: %+v; want c only, precise", ch)
	}
	if p := w.Problem(); p != "" {
		t.Errorf("problem after the build: %q", p)
	}
}

// TestCountFromStart: for a caller whose base was captured during the
// build, CountFromStart makes the first Take report the changes
// made once each directory was watched, during the build too ("a" is
// the root, watched first, while the build stops at "b"), precisely. After a doubt
// during the build (the queue overflows) it is Full, as Take is.
func TestCountFromStart(t *testing.T) {
	for _, tc := range []struct {
		name     string
		queue    int
		writes   int
		wantFull bool
	}{
		{"precise", 0, 1, false},
		{"overflow during the build", 4, 40, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, w, release, started := startBlockedAtB(t, Options{Logf: t.Logf, QueueSize: tc.queue})
			for i := range tc.writes {
				put(t, dir, fmt.Sprintf("new%d", i), "x")
			}
			if w.CountFromStart() {
				t.Fatal("CountFromStart during the build: true")
			}
			if tc.wantFull {
				// The pump doubts as the queue fills, while the build
				// holds the loop: wait for it before the build ends.
				// Released first, a slow pump under load could find the
				// loop draining the queue and never fill it.
				deadline := time.Now().Add(30 * time.Second)
				for doubted := false; !doubted && time.Now().Before(deadline); time.Sleep(time.Millisecond) {
					w.mu.Lock()
					doubted = w.reason != notTaken
					w.mu.Unlock()
				}
			}
			close(release)
			must(t, <-started)
			counted := w.CountFromStart()
			ch := settled(t, w)
			if counted == tc.wantFull || ch.Full != tc.wantFull || !tc.wantFull && (len(ch.Dirs) != 1 || !ch.Dirs[""]) {
				t.Fatalf("CountFromStart after the build: %v, then Take %+v; want Full %v, else the root only", counted, ch, tc.wantFull)
			}
			if tc.wantFull {
				return
			}
			put(t, dir, "a/new", "x")
			if ch := settled(t, w); ch.Full || len(ch.Dirs) != 1 || !ch.Dirs["a"] {
				t.Fatalf("the Take after it: %+v; want a only, precise", ch)
			}
		})
	}
}
