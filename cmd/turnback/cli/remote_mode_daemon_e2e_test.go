//go:build unix

package cli

import (
	"io/fs"
	"os"
	"testing"

	"github.com/turnback/turnback/cas/s3/s3test"
)

// TestRemoteCLIDaemonUmask: the watch daemon was started by a process
// with umask 000 (an agent hook, a service); the user's shell has umask
// 022. A pull --apply the daemon serves never lands the remote's 0777
// script and 0666 file group or world writable.
func TestRemoteCLIDaemonUmask(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root")
	}
	srv := s3test.Start(t)
	const url = "s3://tb-daemon-umask/x"
	a := remoteEnv(t, srv, "a")
	a.ok("remote", "set", url, "--create")
	a.ok("snap")
	a.write("seed.txt", "seed\n")
	a.ok("end")
	a.ok("push")
	b := remoteEnv(t, srv, "b")
	daemon, shell := umaskBinary(t, b, "000"), umaskBinary(t, b, "022")
	b.bin = shell
	if r := b.exec(b.base, nil, "clone", url, b.dir, "--session", "default"); r.code != 0 {
		t.Fatalf("%s", r)
	}
	b.bin = daemon
	t.Cleanup(func() { b.run("watch", "--stop") })
	b.ok("watch", "--detach")
	b.bin = shell
	a.ok("snap")
	a.write("wide.sh", "#!/bin/sh\n")
	a.chmod("wide.sh", 0o777)
	a.write("open.txt", "open\n")
	a.chmod("open.txt", 0o666)
	a.ok("end")
	a.ok("push")
	b.ok("pull", "--apply")
	for p, m := range map[string]fs.FileMode{"wide.sh": 0o755, "open.txt": 0o644} {
		fi, err := os.Lstat(b.path(p))
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode() != m {
			t.Errorf("%s is %v after pull --apply through a umask 000 daemon, want %v", p, fi.Mode(), m)
		}
	}
	if r := b.ok("status"); len(r.stdout) < 11 || r.stdout[:11] != "no changes " {
		t.Errorf("status after the apply:\n%s", r.stdout)
	}
}
