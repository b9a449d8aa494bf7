package cli

// Review 44: the commit of an undo whose records go to Badger itself
// (not to the write log's reserved room) on a disk that another
// process fills while the undo runs.

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/turnback/turnback/internal/testtier"
)

// r44Crashed reports whether a command died in the Go runtime (a
// SIGBUS from a write into Badger's mmapped files is "fatal error:
// fault", exit 2) rather than exiting with an error of its own.
func r44Crashed(r cliResult) bool {
	return strings.Contains(r.stderr, "fatal error:") || strings.Contains(r.stderr, "SIGBUS")
}

// r44Short is r with its stderr cut to its first lines (a crash dumps
// every goroutine).
func r44Short(r cliResult) cliResult {
	lines := strings.SplitN(r.stderr, "\n", 6)
	if len(lines) > 5 {
		r.stderr = strings.Join(lines[:5], "\n") + "\n..."
	}
	return r
}

// r44NoSpace matches the CLI's no-space message (cas.NoSpaceError).
var r44NoSpace = regexp.MustCompile(`no space left on \S.* \(store .*\): free [0-9]+ MB or move the store`)

// r44FullOK reports whether a command on a full disk ended as the
// design allows: done (exit 0), or exit 1 saying how much to free.
func r44FullOK(r cliResult) bool {
	return !r44Crashed(r) && (r.code == 0 || r.code == 1 && r44NoSpace.MatchString(r.stderr))
}

// r44AgeLog makes the store's write log look created an hour ago: its
// id starts with its creation time (cas/overlay_age.go). An undo then
// finds a fold due and opens the database for writing, as it does for
// every log older than 10 minutes.
func r44AgeLog(t *testing.T, store string) {
	t.Helper()
	f, err := os.OpenFile(filepath.Join(store, "db", "turnback-overlay.log"), os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], uint64(time.Now().Add(-time.Hour).UnixNano()))
	if _, err := f.WriteAt(b[:], 8); err != nil { // after the 8-byte magic
		t.Fatal(err)
	}
}

// TestUndoDiskFillsWriteModeCommit: an undo commits its records
// to Badger when Reserve opened the database for writing: on a
// filesystem without fallocate (ext2 here; btrfs and zfs alike), or on
// tmpfs, ext4 and xfs once the write log is 10 minutes old. Another
// process fills the store's disk while the undo of a 300-file turn
// runs (at its commit step). The design promises: exit 1 with the
// no-space message, nothing crashes, reading commands crash neither
// (they may need space to finish the undo, and then say so), and once
// space is freed the undo is finished.
//
// Before the fix the space guard trusted the free space it measured
// before the disk filled, so the commit's records went into Badger's
// mmapped memtable, whose next page the full disk could not back:
// SIGBUS, exit 2, and the reading commands crashed too (tmpfs) or
// failed with Badger's "Log truncate required ... data loss" (ext2).
func TestUndoDiskFillsWriteModeCommit(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name  string
		mount func(t *testing.T) string
		age   bool
	}{
		{"ext2", func(t *testing.T) string { return raLoopMount(t, 200, "mkfs.ext2", "-q", "-F") }, false},
		{"tmpfs-aged-log", func(t *testing.T) string { return mountTmpfs(t, 100) }, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			mnt := c.mount(t)
			e := newStoreEnv(t)
			e.store = filepath.Join(mnt, "store")
			const n = 300
			for i := range n {
				e.write(fmt.Sprintf("d/f%04d.txt", i), "before\n")
			}
			ip := e.setup() // the turn is the setting, not the check
			ip.ok("snap")
			for i := range n {
				e.write(fmt.Sprintf("d/f%04d.txt", i), fmt.Sprintf("by the agent %d\n", i))
			}
			ip.ok("end")
			if c.age {
				r44AgeLog(t, e.store)
			}
			filler := filepath.Join(mnt, "filler")
			r := e.with("TURNBACK_TEST_FILL_AT=commit=" + filler).run("undo")
			if r44Crashed(r) || r.code != 1 || !r44NoSpace.MatchString(r.stderr) {
				t.Errorf("undo while the disk filled: want exit 1 with the no-space message; got %v", r44Short(r))
			}
			for _, args := range [][]string{{"status"}, {"log"}} {
				if r := e.run(args...); !r44FullOK(r) {
					t.Errorf("%s on the full disk: want exit 0, or 1 with the no-space message; got %v", args[0], r44Short(r))
				}
			}
			if err := os.Remove(filler); err != nil {
				t.Fatal(err)
			}
			e.ok("status")
			if got := string(e.read("d/f0000.txt")); got != "before\n" {
				t.Errorf("after the undo was finished d/f0000.txt is %q", got)
			}
			raVerify(t, e, "after the undo was finished")
			if out := e.ok("log").stdout; !strings.Contains(out, "undone") {
				t.Errorf("log does not show the undo:\n%s", out)
			}
		})
	}
}

// r44Frames counts the frames of the store's write log (docs/design.md,
// "The overlay log": a 24-byte header, then frames whose first four
// bytes are the body's length, after a 12-byte frame header).
func r44Frames(t *testing.T, store string) int {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(store, "db", "turnback-overlay.log"))
	if err != nil {
		return 0
	}
	n := 0
	for off := 24; off+12 <= len(b); n++ {
		off += 12 + int(binary.LittleEndian.Uint32(b[off:]))
	}
	return n
}

// TestUndoDiskFillsAfterCommitAtClose: after about 30
// commands the write log is due for a fold (32 frames), so an undo
// opens the database for writing and folds the log into it. The undo
// commits and prints that it undid the turn and its checkpoint; then
// another process fills the disk (at the undo's last step, "clear
// journal"). The command must still exit 0: the undo is done and
// recorded. Reading commands on the full disk crash neither; once
// space is freed, nothing is lost.
//
// Before the fix it exited 2 with "fatal error: fault": closing the
// store, Badger wrote its memtable out into a level-0 table through a
// map of a sparse file, on a disk whose reserve another process took.
// Close now leaves the memtable in its synced log when the flush
// cannot fit (cas guardClose); the next write-mode open replays it.
func TestUndoDiskFillsAfterCommitAtClose(t *testing.T) {
	testtier.Slow(t)
	t.Parallel()
	mnt := mountTmpfs(t, 100)
	e := newStoreEnv(t)
	e.store = filepath.Join(mnt, "store")
	e.write("a.txt", "a\n")
	e.ok("snap")
	for i := 0; r44Frames(t, e.store) < 30; i++ {
		if i > 100 {
			t.Fatalf("the write log does not grow: %d frames", r44Frames(t, e.store))
		}
		e.write(fmt.Sprintf("x%d.txt", i), "x\n")
		e.ok("snap")
	}
	for i := range 50 {
		e.write(fmt.Sprintf("d/f%02d.txt", i), "by the agent\n")
	}
	e.ok("end")
	if n := r44Frames(t, e.store); n < 31 {
		t.Fatalf("%d frames in the write log before the undo, want 31 or more", n)
	}
	filler := filepath.Join(mnt, "filler")
	r := e.with("TURNBACK_TEST_FILL_AT=clear journal=" + filler).run("undo")
	if !strings.Contains(r.stdout, "undid 1 turn") {
		t.Fatalf("the undo did not report its work: %v", r44Short(r))
	}
	if r.code != 0 || r44Crashed(r) {
		t.Errorf("an undo done and recorded, the disk filled after its commit: %v", r44Short(r))
	}
	for _, args := range [][]string{{"status"}, {"log"}} {
		if r := e.run(args...); !r44FullOK(r) {
			t.Errorf("%s on the full disk: want exit 0, or 1 with the no-space message; got %v", args[0], r44Short(r))
		}
	}
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	e.ok("status")
	if _, err := os.Stat(e.path("d")); !os.IsNotExist(err) {
		t.Errorf("after the undo d/ is there: %v", err)
	}
	raVerify(t, e, "after the undo")
	if out := e.ok("log").stdout; !strings.Contains(out, "undone") {
		t.Errorf("log does not show the undo:\n%s", out)
	}
}
