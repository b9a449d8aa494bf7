//go:build linux

package daemon

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/turnback/turnback"
)

// TestStartKeepsOrStopsEarly: at the end of the command, a daemon Early
// started is kept when the rules still ask for one with the capture's
// final counts, and stopped (SIGTERM) when they do not; either way no
// second daemon starts. A command that fails (Abandon) stops it, unless
// its capture ran out of its time budget.
func TestStartKeepsOrStopsEarly(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("automatic daemons are started on Linux only")
	}
	getenv := func(k string) string {
		if k == "TURNBACK_AUTO_WATCH" {
			return "5"
		}
		return ""
	}
	for _, tc := range []struct {
		name     string
		files    int64
		timedOut bool
		failed   bool
		wantKept bool
	}{
		{"enough files", 6, false, false, true},
		{"too few files in the end", 2, false, false, false},
		{"the command failed", 6, false, true, false},
		{"the command failed, its capture out of time", 6, true, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := NewLocal(t.TempDir(), t.TempDir())
			l.Note(tc.files, 1)
			l.TimedOut = tc.timedOut
			// A stand-in for the daemon that notes a SIGTERM in a file.
			dir := t.TempDir()
			termed, ready := filepath.Join(dir, "termed"), filepath.Join(dir, "ready")
			stand := exec.Command("sh", "-c", `trap 'echo > "$1"; exit 0' TERM; echo > "$2"; sleep 30 & wait`, "sh", termed, ready)
			if err := stand.Start(); err != nil {
				t.Fatal(err)
			}
			pid := stand.Process.Pid
			t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) }) // Start releases the process
			for _, err := os.Stat(ready); err != nil; _, err = os.Stat(ready) {
				time.Sleep(5 * time.Millisecond) // until the trap is set
			}
			l.early = stand
			if tc.failed {
				l.Abandon()
			} else if err := Start(l, getenv, false); err != nil {
				t.Fatal(err)
			}
			got := false
			for range 30 {
				if _, err := os.Stat(termed); err == nil {
					got = true
					break
				}
				time.Sleep(10 * time.Millisecond)
			}
			if got == tc.wantKept {
				t.Fatalf("SIGTERM received: %v; want %v (kept: %v)", got, !tc.wantKept, tc.wantKept)
			}
		})
	}
}

// TestEarlyOnlyForCountingCommands: only the commands whose capture
// counts for the rules watch their capture's progress.
func TestEarlyOnlyForCountingCommands(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("automatic daemons are started on Linux only")
	}
	getenv := func(string) string { return "" }
	for _, tc := range []struct {
		command string
		watches bool
	}{{"snap", true}, {"end", true}, {"status", true}, {"hook", true}, {"undo", false}, {"redo", false}, {"restore", false}, {"log", false}} {
		l := NewLocal(t.TempDir(), t.TempDir())
		l.Early(tc.command, getenv, false, &turnback.Progress{}, nil)
		if got := l.stop != nil; got != tc.watches {
			t.Errorf("%s: watches its capture: %v, want %v", tc.command, got, tc.watches)
		}
		l.stopEarly()
	}
}
