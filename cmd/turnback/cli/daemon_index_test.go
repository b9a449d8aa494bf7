package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// TestDaemonSeesNewlyTrackedDir: a node_modules/ skipped for its name
// becomes tracked by "git add" (a committed dependency) while a watch
// daemon serves the folder; edits in it afterwards are captured by the
// daemon's snaps (each equal to a full walk), not left to the next
// rescan.
func TestDaemonSeesNewlyTrackedDir(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git binary (a fixture tool only)")
	}
	w := newDaemonWorld(t)
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@t"}, args...)...)
		cmd.Dir = w.wt
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+w.wt)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
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
	write("main.go", "package main\n")
	git("init", "-q")
	git("add", "main.go")
	write("node_modules/dep/index.js", "module.exports = 1\n")
	check := func(what string) daemonSnapDoc {
		t.Helper()
		doc := w.snap()
		if full := w.fullWalk(); doc.Snapshot != full.String() {
			t.Fatalf("%s: the daemon's snapshot %s is not a full walk's %s (incremental %v)\ndaemon:\n%s",
				what, doc.Snapshot[:12], full.Short(), doc.Stats.Watch.Incremental, w.log)
		}
		return doc
	}
	check("node_modules/ skipped")
	check("again") // incremental from here on
	git("add", "-f", "node_modules")
	check("after git add")
	for i, data := range []string{"module.exports = 2\n", "module.exports = 3\n"} {
		time.Sleep(20 * time.Millisecond)
		write("node_modules/dep/index.js", data)
		write("node_modules/dep/new.js", data)
		check("edit " + string(rune('1'+i)) + " in the newly tracked node_modules/")
	}
}
