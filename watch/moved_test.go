//go:build linux

package watch

import (
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"
)

// TestMovedAgainBeforeHandled renames a directory into a directory that
// was itself just renamed, while the loop is held: when the loop lists
// the second directory's new place, the moved directory's subtree is
// still watched under its old paths (the loop has not handled that
// rename yet), and inotify answers an Add of a directory it already
// watches with the same watch, which fsnotify keeps under the old path.
// Dropping the old paths later must not leave the new ones unwatched.
func TestMovedAgainBeforeHandled(t *testing.T) {
	dir := t.TempDir()
	p := func(rel string) string { return filepath.Join(dir, filepath.FromSlash(rel)) }
	put(t, dir, "p/s/n/deep/f.txt", "f")
	put(t, dir, "q/d/keep", "k")
	w, whileHeld := heldWatcher(t, dir)
	ch := whileHeld(func() {
		must(t, os.Rename(p("q/d"), p("q/c")))
		must(t, os.Rename(p("p/s"), p("q/c/x")))
	})
	wantDirty(t, ch, "p", "q", "q/c", "q/c/x", "q/c/x/n", "q/c/x/n/deep")

	for _, d := range []string{"q/c/x", "q/c/x/n", "q/c/x/n/deep"} {
		put(t, dir, d+"/new.txt", "n")
		ch := settled(t, w)
		if ch.Full || !ch.Dirs[d] {
			t.Errorf("file created in %s: Full=%v Dirs %v", d, ch.Full, dirList(ch.Dirs))
		}
		for o := range ch.Dirs {
			if o != d {
				t.Errorf("file created in %s: also %q dirty", d, o)
			}
		}
	}
}

// TestStaleRemovalAfterListing: a rename reported under a path that is
// stale by the time the loop handles it (the event's directory moved
// away, another one took its place and was listed and watched already)
// must not leave the new occupant of that path unwatched.
func TestStaleRemovalAfterListing(t *testing.T) {
	dir, outside := t.TempDir(), t.TempDir()
	p := func(rel string) string { return filepath.Join(dir, filepath.FromSlash(rel)) }
	put(t, dir, "A/p/x/f.txt", "f")
	put(t, dir, "B/p/keep", "k")
	w, whileHeld := heldWatcher(t, dir)
	ch := whileHeld(func() {
		must(t, os.Rename(p("A"), p("A2")))
		must(t, os.Rename(p("B"), p("A")))
		must(t, os.Rename(p("A2/p/x"), filepath.Join(outside, "x")))
		must(t, os.Mkdir(p("A/p/x"), 0o755))
	})
	wantDirty(t, ch, "", "A", "A/p", "A/p/x", "A2", "A2/p")
	for _, d := range []string{"A/p", "A/p/x", "A2/p"} {
		put(t, dir, d+"/new.txt", "n")
		ch := settled(t, w)
		if ch.Full || !ch.Dirs[d] || len(ch.Dirs) != 1 {
			t.Errorf("file created in %s: Full=%v Dirs %v", d, ch.Full, dirList(ch.Dirs))
		}
	}
}

// heldWatcher starts a watcher on dir whose loop can be held, settles
// it, and returns it with whileHeld: that runs moves while the loop is
// held (fsnotify queues their events; the loop handles none), lets it
// go, and returns the settled changes, failing the test if they are
// Full.
func heldWatcher(t *testing.T, dir string) (w *Watcher, whileHeld func(moves func()) Changes) {
	t.Helper()
	var hold atomic.Bool
	gate := make(chan struct{})
	w = startWatcher(t, dir, Options{}, func(w *Watcher) {
		w.hook = func() {
			if hold.Load() {
				<-gate
			}
		}
	})
	w.Take()
	settled(t, w)
	return w, func(moves func()) Changes {
		t.Helper()
		hold.Store(true)
		moves()
		time.Sleep(20 * time.Millisecond) // let fsnotify read the events
		hold.Store(false)
		close(gate)
		ch := settled(t, w)
		if ch.Full {
			t.Fatalf("Full: %s", ch.Reason)
		}
		return ch
	}
}

// wantDirty asserts that every one of dirs is dirty in ch.
func wantDirty(t *testing.T, ch Changes, dirs ...string) {
	t.Helper()
	for _, d := range dirs {
		if !ch.Dirs[d] {
			t.Errorf("after the renames: %q not dirty (Dirs %v)", d, dirList(ch.Dirs))
		}
	}
}
