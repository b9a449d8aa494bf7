package turnback_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/turnback/turnback"
	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/walker"
)

// fullWalk captures dir from scratch into a memory store.
func fullWalk(t *testing.T, dir string) cas.Hash {
	t.Helper()
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	s, err := cas.NewStore(cas.NewMemory())
	if err != nil {
		t.Fatal(err)
	}
	res, err := walker.Capture(context.Background(), root, s, walker.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return res.Root
}

func watchedRepo(t *testing.T) (*turnback.Repo, string) {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("written for inotify")
	}
	wt := t.TempDir()
	for _, p := range []string{"a/one.txt", "a/b/two.txt", "c/three.txt"} {
		writeFile(t, wt, p, p+"\n")
	}
	r, err := turnback.Open(context.Background(), wt, turnback.Options{Store: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	if err := r.Watch(context.Background(), turnback.WatchOptions{}); err != nil {
		t.Fatal(err)
	}
	return r, wt
}

func writeFile(t *testing.T, root, rel, data string) {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestWatchIncremental: after Watch, captures read only what changed and
// equal full walks; a second session's view shares the watcher.
func TestWatchIncremental(t *testing.T) {
	t.Parallel()
	r, wt := watchedRepo(t)
	ctx := t.Context()
	res, err := r.Snap(ctx, "first")
	if err != nil {
		t.Fatal(err)
	}
	if res.Watch == nil || !res.Watch.Incremental || res.Stats.HashedFiles != 0 {
		t.Fatalf("first snap after Watch: watch %+v, %d files read; want incremental, nothing read", res.Watch, res.Stats.HashedFiles)
	}
	writeFile(t, wt, "a/b/two.txt", "changed\n")
	v, err := r.View(turnback.Options{Session: "second"})
	if err != nil {
		t.Fatal(err)
	}
	res, err = v.Snap(ctx, "other session")
	if err != nil {
		t.Fatal(err)
	}
	if !res.Watch.Incremental || res.Watch.DirsRead != 3 || res.Stats.HashedFiles > 2 || res.Snapshot != fullWalk(t, wt) {
		t.Fatalf("snap of a view after one edit: watch %+v, %d read, %s vs full walk %s", *res.Watch, res.Stats.HashedFiles, res.Snapshot.Short(), fullWalk(t, wt).Short())
	}
	if v.Session() != "second" || r.Session() != "default" {
		t.Errorf("sessions: view %q, repo %q", v.Session(), r.Session())
	}
	if err := v.Close(); err != nil {
		t.Fatal(err)
	}
	// Closing the view left the store open.
	if _, err := r.Status(ctx); err != nil {
		t.Fatalf("status after closing a view: %v", err)
	}
	// Other capture settings: a full walk, said so.
	v2, _ := r.View(turnback.Options{SizeLimit: 1})
	st, err := v2.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Watch.Incremental || st.Watch.FullWalk == "" {
		t.Errorf("status with another size limit: %+v, want a full walk with a reason", *st.Watch)
	}
}

// TestWatchGCKeepsBase: gc while watching must keep the trees the next
// incremental capture reuses, even those of a capture no turn recorded.
func TestWatchGCKeepsBase(t *testing.T) {
	t.Parallel()
	r, wt := watchedRepo(t)
	ctx := t.Context()
	if _, err := r.Snap(ctx, "one"); err != nil {
		t.Fatal(err)
	}
	// Captured by status only: nothing but the watcher's base holds it.
	writeFile(t, wt, "c/d/e/new.txt", "only status saw this\n")
	if _, err := r.Status(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := r.GC(ctx, turnback.GCOptions{Keep: 1}); err != nil {
		t.Fatal(err)
	}
	writeFile(t, wt, "a/one.txt", "edited after gc\n")
	res, err := r.Snap(ctx, "two")
	if err != nil {
		t.Fatal(err)
	}
	if !res.Watch.Incremental || res.Snapshot != fullWalk(t, wt) {
		t.Fatalf("snap after gc: %+v, %s vs full walk %s", *res.Watch, res.Snapshot.Short(), fullWalk(t, wt).Short())
	}
	v, err := r.Verify(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(v.Problems) > 0 {
		t.Fatalf("verify after gc while watching: %+v", v.Problems)
	}
}

// undoHeld opens a Repo on a folder with one turn and starts undoing it
// in a view (holder "the slow undo") that stops inside the restore until
// release is closed; done then gets the undo's error.
func undoHeld(t *testing.T) (r *turnback.Repo, release chan struct{}, done chan error) {
	t.Helper()
	wt := t.TempDir()
	writeFile(t, wt, "f", "one\n")
	ctx := t.Context()
	r, err := turnback.Open(ctx, wt, turnback.Options{Store: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	release = make(chan struct{})
	t.Cleanup(func() {
		select {
		case <-release:
		default:
			close(release) // a test that failed early: let the undo end
		}
		r.Close()
	})
	if _, err := r.Snap(ctx, ""); err != nil {
		t.Fatal(err)
	}
	writeFile(t, wt, "f", "two\n")
	if _, err := r.End(ctx); err != nil {
		t.Fatal(err)
	}
	slow, _ := r.View(turnback.Options{Holder: "the slow undo"})
	entered := make(chan struct{})
	var once sync.Once
	slow.SetRestoreHook(func(string) error {
		once.Do(func() { close(entered); <-release })
		return nil
	})
	done = make(chan error, 1)
	go func() { _, err := slow.Undo(ctx, 1, turnback.UndoOptions{}); done <- err }()
	<-entered
	return r, release, done
}

// TestViewLockWait: a view waits for another view's operation as Open
// waits for another process, then fails with ErrBusy naming it.
func TestViewLockWait(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	r, release, done := undoHeld(t)
	var waited []string
	quick, _ := r.View(turnback.Options{LockWait: 50 * time.Millisecond, OnWait: func(h string) { waited = append(waited, h) }})
	_, err := quick.Status(ctx)
	if !errors.Is(err, turnback.ErrBusy) || !strings.Contains(err.Error(), "the slow undo") {
		t.Errorf("status while another view undoes: %v; want ErrBusy naming the undo", err)
	}
	if len(waited) != 1 || waited[0] != "the slow undo" {
		t.Errorf("OnWait calls: %q", waited)
	}
	now, _ := r.View(turnback.Options{LockWait: -1})
	if _, err := now.Status(ctx); !errors.Is(err, turnback.ErrBusy) {
		t.Errorf("status with LockWait < 0: %v; want ErrBusy at once", err)
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	// And a view that waits long enough gets its turn.
	if _, err := quick.Status(ctx); err != nil {
		t.Errorf("status after the undo: %v", err)
	}
}

// TestLockContext: an operation waiting for another one's turn stops
// waiting when its context is done, with an error wrapping the
// context's, and changes nothing; the Repo from Open and a view with a
// long LockWait both wait on the context.
func TestLockContext(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	r, release, done := undoHeld(t)
	long, _ := r.View(turnback.Options{LockWait: time.Hour})
	for name, repo := range map[string]*turnback.Repo{"open": r, "view": long} {
		cctx, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
		_, err := repo.Snap(cctx, "waits")
		cancel()
		if !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, turnback.ErrBusy) {
			t.Errorf("%s: snap while another operation runs, context ends: %v; want the context's error", name, err)
		}
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	turns, _, err := r.Turns(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(turns) != 0 {
		t.Errorf("turns after the undo and the snaps that gave up: %d; want 0", len(turns))
	}
}
