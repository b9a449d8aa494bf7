//go:build unix

package cli

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestReadOnlyStore: on a store nobody may write (chmod -R a-w, run as a
// user without root's power to ignore it), the reading commands work and
// leave it byte-identical; a command that records exits 1.
func TestReadOnlyStore(t *testing.T) {
	t.Parallel()
	e := newStoreEnv(t)
	e2eHistory(e)
	turns := e.turns()
	if len(turns) != 2 {
		t.Fatalf("turns %+v", turns)
	}
	e.writeBytes("b.txt", []byte("b3\n")) // something for status and diff

	var cred *syscall.Credential
	if os.Geteuid() == 0 {
		// Run as nobody: the binary, the work tree and the store must be
		// reachable by it.
		const uid, gid = 65534, 65534
		binDir, err := os.MkdirTemp("", "turnback-ro-bin-")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.RemoveAll(binDir) })
		e.bin = copyBinaries(t, e.bin, binDir)
		for _, d := range []string{binDir, e.base, filepath.Dir(e.base)} {
			if err := os.Chmod(d, 0o755); err != nil {
				t.Fatal(err)
			}
		}
		err = filepath.WalkDir(e.base, func(p string, _ fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			return os.Lchown(p, uid, gid)
		})
		if err != nil {
			t.Fatal(err)
		}
		cred = &syscall.Credential{Uid: uid, Gid: gid}
	}
	err := filepath.WalkDir(e.store, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		return os.Chmod(p, fi.Mode().Perm()&^0o222)
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = filepath.WalkDir(e.store, func(p string, d fs.DirEntry, err error) error {
			if err == nil {
				_ = os.Chmod(p, 0o700)
			}
			return nil
		})
	})
	before := dirState(t, e.store)
	run := func(args ...string) cliResult {
		cmd := e.command(args...)
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
		return cliWait(t, cmd, nil, args)
	}
	cases := []struct {
		args []string
		out  string
	}{
		{[]string{"log"}, "   2  "},
		{[]string{"status"}, "M b.txt"},
		{[]string{"show", turns[0].After[:12]}, "b.txt"},
		{[]string{"diff"}, "+b3"},
		{[]string{"info"}, "snapshots:  "},
		{[]string{"verify"}, "ok: "},
	}
	for _, c := range cases {
		r := run(c.args...)
		if r.code != 0 || !strings.Contains(r.stdout, c.out) {
			t.Errorf("on a read-only store: %v\nwant exit 0 and %q", r, c.out)
		}
	}
	if r := run("snap"); r.code != 1 {
		t.Errorf("snap on a read-only store: %v\nwant exit 1", r)
	}
	if got := dirState(t, e.store); got != before {
		t.Errorf("the read-only store changed:\nbefore:\n%s\nafter:\n%s", before, got)
	}
}
