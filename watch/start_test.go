//go:build linux

package watch

import (
	"context"
	"sync"
	"testing"
)

// TestTakeDuringFirstBuild: a Take while Start still builds the watches
// is Full and does not count as the first Take (a capture after it
// would start before every directory is watched): the Take after Start
// returned is Full too, and only the next one reports changes
// precisely. The root's identity, not taken yet, is no doubt either.
func TestTakeDuringFirstBuild(t *testing.T) {
	dir := t.TempDir()
	for _, rel := range []string{"a/f", "b/g", "c/h"} {
		put(t, dir, rel, rel)
	}
	w, err := New(dir, Options{Logf: t.Logf})
	must(t, err)
	t.Cleanup(func() { w.Close() })
	blocked, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	w.addHook = func(rel string) error {
		if rel == "b" {
			once.Do(func() { close(blocked); <-release })
		}
		return nil
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	started := make(chan error, 1)
	go func() { started <- w.Start(ctx) }()
	<-blocked
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
