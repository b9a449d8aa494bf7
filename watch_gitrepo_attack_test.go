//go:build linux

package turnback

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// gitIn runs git in dir.
func gitIn(t *testing.T, dir string, args ...string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// snapLikeFullWalk snaps r and fails unless the snap equals a full walk
// of wt.
func snapLikeFullWalk(t *testing.T, r *Repo, wt, msg string) {
	t.Helper()
	res, err := r.Snap(t.Context(), msg)
	if err != nil {
		t.Fatal(err)
	}
	if want := fullWalkOf(t, wt); res.Snapshot != want.Root || res.Files != want.Stats.Files {
		t.Fatalf("snap %s (watch %+v) = %s (%d files), full walk %s (%d files)",
			msg, res.Watch, res.Snapshot.Short(), res.Files, want.Root.Short(), want.Stats.Files)
	}
}

// TestWatchNestedRepoMade: a git repository made in a watched
// subdirectory (git init; git add -f of a file in its node_modules,
// which evidence skips) makes that node_modules tracked, so captured.
// No index the base was captured under changed, and the watcher judged
// the new ".git" ignored and marked nothing: the daemon's next capture
// reused x/sub and kept node_modules skipped, where a full walk
// captures it.
func TestWatchNestedRepoMade(t *testing.T) {
	ctx := t.Context()
	wt, store := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(wt, "a.txt"), "a")
	writeFile(t, filepath.Join(wt, "x", "sub", "node_modules", ".package-lock.json"), "{}")
	writeFile(t, filepath.Join(wt, "x", "sub", "node_modules", "a.js"), "js")
	writeFile(t, filepath.Join(wt, "x", "sub", "main.go"), "go")
	r, err := Open(ctx, wt, Options{Store: store})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if err := r.Watch(ctx, WatchOptions{}); err != nil {
		t.Fatal(err)
	}
	snapLikeFullWalk(t, r, wt, "before git init")
	sub := filepath.Join(wt, "x", "sub")
	gitIn(t, sub, "init", "-q")
	gitIn(t, sub, "add", "-f", "node_modules/a.js")
	snapLikeFullWalk(t, r, wt, "after git init and add")
}

// TestWatchIndexChangedUnderWatcher: the watcher decides which
// directories to watch by the git index it read (its build, or its
// rescan of a new repository); a "git add -f" of a file below an
// evidence-skipped directory made after that, but before the capture
// that becomes its base read the index, leaves the base capturing that
// directory, under an index that stays current, while the watcher never
// watches it: a file made there later was never seen by the daemon.
// The watcher now says which index versions it judged by, and a base
// captured under others makes it doubt (and rebuild).
func TestWatchIndexChangedUnderWatcher(t *testing.T) {
	t.Run("add during the build", func(t *testing.T) {
		ctx := t.Context()
		wt, store := t.TempDir(), t.TempDir()
		writeFile(t, filepath.Join(wt, "a.txt"), "a")
		writeFile(t, filepath.Join(wt, "node_modules", ".package-lock.json"), "{}")
		writeFile(t, filepath.Join(wt, "node_modules", "pkg", "x.js"), "js")
		gitIn(t, wt, "init", "-q")
		gitIn(t, wt, "add", "a.txt")
		r, err := Open(ctx, wt, Options{Store: store})
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		g := &startGate{reached: make(chan struct{}), release: make(chan struct{})}
		startGates.Store(wt, map[string]*startGate{"built": g})
		defer startGates.Delete(wt)
		done := make(chan error, 1)
		go func() { done <- r.Watch(ctx, WatchOptions{}) }()
		<-g.reached
		gitIn(t, wt, "add", "-f", "node_modules/pkg/x.js")
		close(g.release)
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		snapLikeFullWalk(t, r, wt, "first")
		writeFile(t, filepath.Join(wt, "node_modules", "pkg", "new.js"), "new")
		snapLikeFullWalk(t, r, wt, "after node_modules/pkg/new.js")
	})
	t.Run("add in a new nested repository", func(t *testing.T) {
		ctx := t.Context()
		wt, store := t.TempDir(), t.TempDir()
		writeFile(t, filepath.Join(wt, "a.txt"), "a")
		writeFile(t, filepath.Join(wt, "x", "node_modules", ".package-lock.json"), "{}")
		writeFile(t, filepath.Join(wt, "x", "node_modules", "pkg", "x.js"), "js")
		r, err := Open(ctx, wt, Options{Store: store})
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		if err := r.Watch(ctx, WatchOptions{}); err != nil {
			t.Fatal(err)
		}
		snapLikeFullWalk(t, r, wt, "first")
		x := filepath.Join(wt, "x")
		gitIn(t, x, "init", "-q")
		time.Sleep(50 * time.Millisecond) // the watcher handles the new .git
		gitIn(t, x, "add", "-f", "node_modules/pkg/x.js")
		snapLikeFullWalk(t, r, wt, "after git init and add")
		writeFile(t, filepath.Join(x, "node_modules", "pkg", "new.js"), "new")
		snapLikeFullWalk(t, r, wt, "after x/node_modules/pkg/new.js")
	})
}
