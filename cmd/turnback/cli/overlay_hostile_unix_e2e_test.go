//go:build unix

package cli

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestHostileLogNotRead: a write log turnback cannot have written (a
// fifo, every open of which blocked; a symlink to /dev/zero, read until
// memory ran out) is damage as a whole. Reading commands say so and go
// on, writing ones exit 1, verify --repair moves it aside, and the
// store works again. Each command is bounded: before, the fifo hung.
func TestHostileLogNotRead(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		make func(path string) error
	}{
		{"fifo", func(path string) error { return syscall.Mkfifo(path, 0o600) }},
		{"dev-zero", func(path string) error { return os.Symlink("/dev/zero", path) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newStoreEnv(t)
			e.timeout = time.Minute
			e.write("a.txt", "one\n")
			ip := e.setup() // the turn is the setting, not the check
			ip.ok("snap", "-m", "first")
			e.write("a.txt", "two\n")
			ip.ok("end")
			path := filepath.Join(e.store, "db", "turnback-overlay.log")
			if err := os.Remove(path); err != nil {
				t.Fatal(err)
			}
			if err := tc.make(path); err != nil {
				t.Fatal(err)
			}
			say := "not a regular file"
			r := e.ok("status")
			if !strings.Contains(r.stderr, path) || !strings.Contains(r.stderr, say) || !strings.Contains(r.stderr, "turnback verify --repair") {
				t.Errorf("status: no word of the damaged log (%q):\n%v", say, r)
			}
			for _, args := range [][]string{{"snap"}, {"undo"}} {
				if r := e.expect(1, args...); !strings.Contains(r.stderr, say) {
					t.Errorf("%v: %v", args, r)
				}
			}
			r = e.run("verify", "--repair")
			kept, _ := filepath.Glob(path + ".damaged-*")
			if r.code > 1 || len(kept) != 1 {
				t.Fatalf("verify --repair: the log is not moved aside (%v):\n%v", kept, r)
			}
			e.ok("verify")
			e.ok("snap", "-m", "after")
			e.write("a.txt", "three\n")
			e.ok("end")
			e.ok("undo")
			if got := string(e.read("a.txt")); got != "two\n" {
				t.Errorf("undo after the repair: a.txt is %q, want %q", got, "two\n")
			}
		})
	}
}
