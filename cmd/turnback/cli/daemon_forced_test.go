package cli

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/turnback/turnback/internal/testtier"
)

// TestDaemonSeesForceAddedFile: a.cfg, which .gitignore ignores, is
// added with "git add -f" while a watch daemon serves the folder. The
// daemon's snaps then capture it and each edit of it (each snap equal
// to a full walk, reading the two tracked files edited): its watcher
// reports their events.
func TestDaemonSeesForceAddedFile(t *testing.T) {
	testtier.Slow(t)
	needTools(t, "git")
	w := newDaemonWorld(t)
	write := func(rel, data string) {
		t.Helper()
		p := filepath.Join(w.wt, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(".gitignore", "*.cfg\nbuild/\n")
	write("main.go", "package main\n")
	write("a.cfg", "v0\n")
	write("build/keep.txt", "v0\n")
	gitIn(t, w.wt, "init", "-q")
	gitIn(t, w.wt, "add", "main.go")
	// Past the racy window (20 ms on a local filesystem, else 100 ms):
	// the first capture records main.go and .gitignore, so the edits'
	// captures do not read them again. On an idle machine the steps
	// below took less than the window, and the edits read 3 or 4 files.
	time.Sleep(150 * time.Millisecond)
	check := func(what string) daemonSnapDoc {
		t.Helper()
		doc := w.snap()
		if full := w.fullWalk(); doc.Snapshot != full.String() {
			t.Fatalf("%s: the daemon's snapshot %s is not a full walk's %s (incremental %v)\ndaemon:\n%s",
				what, doc.Snapshot[:12], full.Short(), doc.Stats.Watch.Incremental, w.log)
		}
		return doc
	}
	check("a.cfg ignored")
	check("again") // incremental from here on
	gitIn(t, w.wt, "add", "-f", "a.cfg", "build/keep.txt")
	check("after git add -f")
	for i, data := range []string{"v1\n", "v2\n"} {
		time.Sleep(20 * time.Millisecond)
		write("a.cfg", data)
		write("build/keep.txt", data)
		write("build/other.o", data) // untracked: ignored
		if doc := check("edit " + string(rune('1'+i))); doc.Stats.HashedFiles != 2 {
			t.Fatalf("edit %d: the daemon read %d files, want a.cfg and build/keep.txt\ndaemon:\n%s", i+1, doc.Stats.HashedFiles, w.log)
		}
	}
}
