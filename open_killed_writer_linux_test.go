package turnback_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/turnback/turnback"
)

// TestOpenAfterKillUnmapsMemtable: a process that had the
// database open for writing (a daemon, gc, an undo that opened it) is
// killed; its memtable file (16 MiB) stays. A program using the Go API
// then opens the store, as every command does: the store is opened for
// writing, which replays and deletes that file. After Close, nothing of
// the store may stay mapped in the program. Before the fix a read-only
// open was tried first (cas/deferred.go openDeferred); Badger's failure
// ("Log truncate required") left the memtable mapped: 16 MiB of a
// deleted file whose blocks the disk got back only when the program
// exited, and a filesystem holding the store could not be unmounted.
func TestOpenAfterKillUnmapsMemtable(t *testing.T) {
	if work := os.Getenv("R44_LEAK_WORK"); work != "" {
		r, err := turnback.Open(t.Context(), work, turnback.Options{Store: os.Getenv("R44_LEAK_STORE"), WriteNow: true})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := r.Snap(t.Context(), "turn"); err != nil {
			t.Fatal(err)
		}
		_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
		select {}
	}
	t.Parallel()
	ctx := t.Context()
	work, store := t.TempDir(), filepath.Join(t.TempDir(), "store")
	raFiles(t, work, "a.txt", "a\n")
	cmd := exec.Command(os.Args[0], "-test.run=^TestOpenAfterKillUnmapsMemtable$", "-test.count=1")
	cmd.Env = append(os.Environ(), "R44_LEAK_WORK="+work, "R44_LEAK_STORE="+store)
	if err := cmd.Run(); err == nil || cmd.ProcessState.Exited() {
		t.Fatalf("the writer was not killed: %v", err)
	}
	r, err := turnback.Open(ctx, work, turnback.Options{Store: store})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Status(ctx); err != nil {
		t.Fatal(err)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	maps, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(maps), "\n") {
		if strings.Contains(l, store) {
			t.Errorf("after Close the store is still mapped: %s", l)
		}
	}
}
