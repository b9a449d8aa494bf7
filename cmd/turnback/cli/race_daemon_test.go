//go:build linux

package cli

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestUndoDaemonUnseenWrites: writes inotify cannot see (through a shared
// mmap, through a hard link outside the folder) while the daemon serves
// are still found by undo, which hashes every path it would replace: exit
// 3, the file intact. Before, the daemon vouched for the file and undo
// overwrote the edit.
func TestUndoDaemonUnseenWrites(t *testing.T) {
	t.Parallel()
	g := newSubtestGroup(t)
	for _, tc := range []struct {
		name string
		edit func(t *testing.T, e *cliEnv, p string)
	}{
		{"mmap", func(t *testing.T, e *cliEnv, p string) {
			f, err := os.OpenFile(p, os.O_RDWR, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			m, err := syscall.Mmap(int(f.Fd()), 0, 10, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED)
			if err != nil {
				t.Fatal(err)
			}
			copy(m, "USERUSERUS")
			if err := syscall.Munmap(m); err != nil {
				t.Fatal(err)
			}
		}},
		{"outside-hardlink", func(t *testing.T, e *cliEnv, p string) {
			out := filepath.Join(filepath.Dir(e.dir), "outside-link")
			if err := os.Link(p, out); err != nil {
				t.Fatal(err)
			}
			f, err := os.OpenFile(out, os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := f.WriteAt([]byte("USERUSERUS"), 0); err != nil {
				t.Fatal(err)
			}
			f.Close()
		}},
	} {
		g.run(tc.name, func(t *testing.T) {
			e := newUndoEnv(t)
			e.shortXDG()
			e.write("f.txt", "0123456789")
			e.write("g.txt", "keep")
			e.ok("snap")
			e.write("f.txt", "AAAAAAAAAA")
			e.ok("end")
			e.startWatchDaemon()
			if r := e.ok("status"); strings.Contains(r.stdout, "f.txt") {
				t.Fatalf("status before the unseen write lists f.txt:\n%s", r.stdout)
			}
			tc.edit(t, e, e.path("f.txt"))
			r := e.expect(3, "undo")
			if !strings.Contains(r.stderr, "f.txt: modified since") {
				t.Errorf("the conflict does not name f.txt:\n%v", r)
			}
			if got, _ := os.ReadFile(e.path("f.txt")); string(got) != "USERUSERUS" {
				t.Fatalf("f.txt is %q after the refused undo, want the user's edit", got)
			}
			// --force proceeds, and the edit is in the checkpoint it prints.
			r = e.ok("undo", "--force")
			if got, _ := os.ReadFile(e.path("f.txt")); string(got) != "0123456789" {
				t.Fatalf("f.txt is %q after undo --force", got)
			}
			cp := shortCheckpoint(t, r)
			e.ok("restore", cp)
			if got, _ := os.ReadFile(e.path("f.txt")); string(got) != "USERUSERUS" {
				t.Fatalf("f.txt is %q after restoring the checkpoint of undo --force, want the user's edit", got)
			}
		})
	}
	g.wait()
}
