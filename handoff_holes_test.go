//go:build linux

package turnback

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/internal/handoff"
	"github.com/turnback/turnback/walker"
)

// snapAfterHandoff plays the daemon of a handoff in this process: it
// opens the store, gives Watch the watcher built early (w), and makes
// one snap through a view; it returns the daemon's Repo, that snap and
// Watch's phases.
func snapAfterHandoff(t *testing.T, wt, store string, w *Watcher, o Options) (*Repo, *SnapResult, WatchPhases) {
	t.Helper()
	ctx := t.Context()
	if w == nil {
		t.Fatal("the watcher was not built during the capture")
	}
	o.Store = store
	d, err := Open(ctx, wt, o)
	if err != nil {
		w.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	var ph WatchPhases
	if err := d.Watch(ctx, WatchOptions{Watcher: w, Phases: &ph}); err != nil {
		t.Fatal(err)
	}
	t.Logf("phases: %s", ph)
	vo := o
	vo.Store, vo.Session = "", "after"
	view, err := d.View(vo)
	if err != nil {
		t.Fatal(err)
	}
	res, err := view.Snap(ctx, "after")
	if err != nil {
		t.Fatal(err)
	}
	return d, res, ph
}

// commandSnap is the command's side: a snap of cli (armed for a
// handoff or not), then Close, as the command exits.
func commandSnap(t *testing.T, cli *Repo) *SnapResult {
	t.Helper()
	res, err := cli.Snap(t.Context(), "the command")
	if err != nil {
		t.Fatal(err)
	}
	if err := cli.Close(); err != nil {
		t.Fatal(err)
	}
	return res
}

// snapAndClose opens the store of wt with o, snaps and closes it: a
// store with a snapshot and a stat cache before the test begins.
func snapAndClose(t *testing.T, wt string, o Options, message string) {
	t.Helper()
	r, err := Open(t.Context(), wt, o)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Snap(t.Context(), message); err != nil {
		t.Fatal(err)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
}

// walkWith is a full walk of dir into s with the given options
// (Previous, LargeDirFiles), as a capture without a watcher makes it.
func walkWith(t *testing.T, dir string, s *cas.Store, o walker.Options) *walker.Result {
	t.Helper()
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	res, err := walker.Capture(context.Background(), root, s, o)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func writeFile(t *testing.T, p, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestHandoffIgnoreChangedEarly: the root's .gitignore changes after the
// command's capture read it (the root is listed before the daemon's
// watcher exists) and before the watcher watches the root, so no event
// ever reports it. The capture lists "sub" after the build, under the
// old rules; the re-list reads the root again (it was listed early) but
// reuses "sub". The daemon must not take a base whose "sub" follows
// rules that are no longer the tree's: the snap after Watch equals a
// full walk (which captures sub/x.log).
func TestHandoffIgnoreChangedEarly(t *testing.T) {
	ctx := t.Context()
	wt, store := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(wt, ".gitignore"), "*.log\n")
	writeFile(t, filepath.Join(wt, "sub", "keep.txt"), "keep")
	writeFile(t, filepath.Join(wt, "sub", "x.log"), "log")
	cli, err := Open(ctx, wt, Options{Store: store})
	if err != nil {
		t.Fatal(err)
	}
	h := cli.armHandoff()
	h.Started(os.Getpid())
	var once sync.Once
	var w *Watcher
	h.Pace = func(rel string) {
		if rel != "sub" {
			return
		}
		once.Do(func() {
			// The root was listed (its .gitignore read) before any watch:
			// the rules change now, unseen, then the watcher is built.
			writeFile(t, filepath.Join(wt, ".gitignore"), "*.tmp\n")
			var err error
			if w, err = StartWatcher(ctx, wt, store, WatchOptions{}); err != nil {
				t.Error(err)
				return
			}
			h.Built()
		})
	}
	commandSnap(t, cli)
	_, res, ph := snapAfterHandoff(t, wt, store, w, Options{})
	if want := fullWalkOf(t, wt); res.Snapshot != want.Root || res.Files != want.Stats.Files {
		t.Fatalf("snap after Watch (handoff %v, watch %+v) = %s (%d files), full walk %s (%d files): sub/x.log follows stale ignore rules",
			ph.Handoff, res.Watch, res.Snapshot.Short(), res.Files, want.Root.Short(), want.Stats.Files)
	}
}

// TestHandoffEarlyDirReplaced: "d" is listed before the daemon's
// watcher exists, then moved away ("d.old") and a new "d" made in its
// place, before the watcher watches anything: no event reports it. The
// capture opens "d/c" after the build, through its handle on the old
// "d", so it reads d.old/c as "d/c". The re-list reads "d" again (it
// was listed early) but reuses "d/c". The snap after Watch must equal a
// full walk (d/c/f is "new").
func TestHandoffEarlyDirReplaced(t *testing.T) {
	ctx := t.Context()
	wt, store := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(wt, "d", "c", "f"), "old")
	cli, err := Open(ctx, wt, Options{Store: store})
	if err != nil {
		t.Fatal(err)
	}
	h := cli.armHandoff()
	h.Started(os.Getpid())
	var once sync.Once
	var w *Watcher
	h.Pace = func(rel string) {
		if rel != "d/c" {
			return
		}
		once.Do(func() {
			if err := os.Rename(filepath.Join(wt, "d"), filepath.Join(wt, "d.old")); err != nil {
				t.Error(err)
				return
			}
			writeFile(t, filepath.Join(wt, "d", "c", "f"), "new")
			var err error
			if w, err = StartWatcher(ctx, wt, store, WatchOptions{}); err != nil {
				t.Error(err)
				return
			}
			h.Built()
		})
	}
	commandSnap(t, cli)
	_, res, ph := snapAfterHandoff(t, wt, store, w, Options{})
	if want := fullWalkOf(t, wt); res.Snapshot != want.Root {
		t.Fatalf("snap after Watch (handoff %v, watch %+v) = %s, full walk %s: d/c is d.old/c's content",
			ph.Handoff, res.Watch, res.Snapshot.Short(), want.Root.Short())
	}
}

// TestHandoffLargeDirAgainstOwnCapture: a directory new since the last
// snapshot ("p", 2 files, under the large-directory rule's 5) is
// listed early and captured: the command's snapshot holds it. Files
// come into it before the re-list, which then judges it against the
// snapshot before the command's, where "p" is new: it becomes a large
// new directory, uncaptured, and stays so (the rule is sticky) in every
// later snapshot, although the previous snapshot captured it. A capture
// made without the handoff, relative to the command's snapshot, keeps
// capturing it.
func TestHandoffLargeDirAgainstOwnCapture(t *testing.T) {
	ctx := t.Context()
	wt, store := t.TempDir(), t.TempDir()
	o := Options{Store: store, LargeDirFiles: 5}
	writeFile(t, filepath.Join(wt, "a.txt"), "a")
	snapAndClose(t, wt, o, "before")
	writeFile(t, filepath.Join(wt, "p", "f1"), "1")
	writeFile(t, filepath.Join(wt, "p", "f2"), "2")
	if err := os.MkdirAll(filepath.Join(wt, "p", "q"), 0o755); err != nil {
		t.Fatal(err)
	}
	cli, err := Open(ctx, wt, o)
	if err != nil {
		t.Fatal(err)
	}
	h := cli.armHandoff()
	h.Started(os.Getpid())
	var w *Watcher
	roots := 0
	h.Pace = func(rel string) {
		switch rel {
		case "p/q":
			// "" and "p" were listed early; the watcher is built now.
			if w != nil {
				return
			}
			var err error
			if w, err = StartWatcher(ctx, wt, store, WatchOptions{}); err != nil {
				t.Error(err)
				return
			}
			h.Built()
		case "":
			roots++
			if roots == 2 { // the re-list starts: "p" grows meanwhile
				for i := 3; i <= 6; i++ {
					writeFile(t, filepath.Join(wt, "p", fmt.Sprint("f", i)), "x")
				}
			}
		}
	}
	snap := commandSnap(t, cli)
	t.Logf("command snap %s uncaptured %+v; roots %d", snap.Snapshot.Short(), snap.Stats.Uncaptured, roots)
	for _, u := range snap.Stats.Uncaptured {
		t.Fatalf("the command's snapshot left %s uncaptured", u.Path)
	}
	d, res, ph := snapAfterHandoff(t, wt, store, w, Options{LargeDirFiles: 5})
	want := walkWith(t, wt, d.store, walker.Options{LargeDirFiles: 5, Previous: snap.Snapshot})
	t.Logf("after: %s %+v %+v; want %s %+v", res.Snapshot.Short(), res.Watch, res.Stats.Uncaptured, want.Root.Short(), want.Stats.Uncaptured)
	if res.Snapshot != want.Root || len(res.Stats.Uncaptured) != len(want.Stats.Uncaptured) {
		t.Fatalf("snap after Watch (handoff %v) = %s, uncaptured %+v; a capture relative to the command's snapshot: %s, uncaptured %+v",
			ph.Handoff, res.Snapshot.Short(), res.Stats.Uncaptured, want.Root.Short(), want.Stats.Uncaptured)
	}
}

// TestHandoffStale: a handoff no daemon took (the daemon it named died,
// or never read it) must not be taken by a later daemon that happens to
// have the same pid (here: this process, as a library user running both
// sides would; across runs, pid reuse). The later command armed a
// handoff too but its capture ended before the build, so it wrote none;
// the daemon must then make its own first capture, and the snap after
// Watch sees the file made in between.
func TestHandoffStale(t *testing.T) {
	ctx := t.Context()
	wt, store := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(wt, "a", "f"), "f")
	// The first command: its daemon said it was built, and it wrote the
	// handoff; nobody took it.
	c1, err := Open(ctx, wt, Options{Store: store})
	if err != nil {
		t.Fatal(err)
	}
	h1 := c1.armHandoff()
	h1.Started(os.Getpid())
	h1.Built()
	commandSnap(t, c1)
	if _, err := os.Stat(filepath.Join(store, handoff.Name)); err != nil {
		t.Fatalf("the first command wrote no handoff: %v", err)
	}
	// Later: a change, then a command whose daemon is built after its
	// capture.
	writeFile(t, filepath.Join(wt, "a", "new"), "new")
	c2, err := Open(ctx, wt, Options{Store: store})
	if err != nil {
		t.Fatal(err)
	}
	c2.armHandoff().Started(os.Getpid())
	commandSnap(t, c2)
	w, err := StartWatcher(ctx, wt, store, WatchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	_, res, ph := snapAfterHandoff(t, wt, store, w, Options{})
	if want := fullWalkOf(t, wt); res.Snapshot != want.Root {
		t.Fatalf("snap after Watch (handoff %v: %s) = %s, full walk %s: a stale handoff was taken",
			ph.Handoff, strings.TrimSpace(ph.NoHandoff), res.Snapshot.Short(), want.Root.Short())
	}
}
