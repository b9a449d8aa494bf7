//go:build unix

package cas

import (
	"context"
	"testing"
	"time"
)

// TestLockFreed: lockFreed's channel stays open while another Badger
// holds the directory and closes once it lets go; a waiting OpenBadger
// then gets the store. Stopping it ends its goroutine without a signal.
func TestLockFreed(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	first, err := OpenBadger(ctx, dir, BadgerOptions{Holder: "first"})
	if err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	defer close(stop)
	freed := lockFreed(dir, false, stop)
	if freed == nil {
		t.Fatal("no channel")
	}
	select {
	case <-freed:
		t.Fatal("freed while the store is held")
	case <-time.After(50 * time.Millisecond):
	}
	opened := make(chan error, 1)
	go func() {
		b, err := OpenBadger(ctx, dir, BadgerOptions{LockWait: time.Minute, Holder: "second"})
		if err == nil {
			err = b.Close()
		}
		opened <- err
	}()
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-freed:
	case <-time.After(time.Minute):
		t.Fatal("not freed once the store was closed")
	}
	if err := <-opened; err != nil {
		t.Fatalf("the waiting open: %v", err)
	}
	held, err := OpenBadger(ctx, dir, BadgerOptions{Holder: "third"})
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	stop2 := make(chan struct{})
	never := lockFreed(dir, true, stop2)
	close(stop2)
	select {
	case <-never:
		t.Fatal("freed (shared) while the store is held for writing")
	case <-time.After(50 * time.Millisecond):
	}
}
