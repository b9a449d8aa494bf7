//go:build unix

package cli

import (
	"io/fs"
	"os"
	"strings"
	"syscall"
	"testing"

	"github.com/turnback/turnback/cas/s3/s3test"
)

// TestRemoteCLIRootKeepsOwners: root clones, pulls and restores @N
// states another machine captured, with a root-owned setuid, setgid
// tool in them, into a folder a user owns. The files become the user's,
// no setuid or setgid file appears, and status shows nothing.
func TestRemoteCLIRootKeepsOwners(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root")
	}
	srv := s3test.Start(t)
	const url, user = "s3://tb-owners/x", 1234
	a := remoteEnv(t, srv, "a")
	a.ok("remote", "set", url, "--create")
	a.write("notes.txt", "one")
	pushSetuid(a, "tool", "#!/bin/sh\n")
	b := remoteEnv(t, srv, "b")
	if err := os.Chown(b.dir, user, user); err != nil {
		t.Fatal(err)
	}
	if r := b.exec(b.base, nil, "clone", url, b.dir, "--session", "default"); r.code != 0 {
		t.Fatalf("%s", r)
	}
	ownedBy(t, b, user, "clone", "notes.txt", "tool")
	if r := b.ok("status"); !strings.HasPrefix(r.stdout, "no changes since ") {
		t.Errorf("status after the clone:\n%s", r.stdout)
	}
	pushSetuid(a, "tool2", "#!/bin/sh\n")
	b.ok("pull")
	b.ok("restore", "@2")
	ownedBy(t, b, user, "restore @2", "notes.txt", "tool", "tool2")
	if r := b.ok("status"); !strings.HasPrefix(r.stdout, "no changes since ") {
		t.Errorf("status after restore @2:\n%s", r.stdout)
	}
}

// pushSetuid records a turn of a that writes name, a setuid, setgid
// script holding data, and pushes it.
func pushSetuid(a *cliEnv, name, data string) {
	a.ok("snap")
	a.write(name, data)
	a.chmod(name, 0o755|fs.ModeSetuid|fs.ModeSetgid)
	a.ok("end")
	a.ok("push")
}

// ownedBy fails t unless each of paths in b's folder is user's, with
// mode 0755 (notes.txt 0644): no setuid or setgid bit.
func ownedBy(t *testing.T, b *cliEnv, user uint32, step string, paths ...string) {
	t.Helper()
	for _, p := range paths {
		fi, err := os.Lstat(b.path(p))
		if err != nil {
			t.Fatalf("%s: %v", step, err)
		}
		st := fi.Sys().(*syscall.Stat_t)
		want := fs.FileMode(0o755)
		if p == "notes.txt" {
			want = 0o644
		}
		if st.Uid != user || st.Gid != user || fi.Mode() != want {
			t.Errorf("%s: %s: owner %d:%d mode %v, want %d:%d %v", step, p, st.Uid, st.Gid, fi.Mode(), user, user, want)
		}
	}
}
