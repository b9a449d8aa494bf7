//go:build unix

package cli

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/turnback/turnback/cas/s3/s3test"
)

// TestRemoteCLIRootDaemonKeepsOwners: as TestRemoteCLIRootKeepsOwners,
// with a watch daemon serving the clone's commands: pull --apply,
// undo, undo --path, redo and restore of states another machine
// captured (root-owned setuid, setgid tools) leave every file the
// user's, 0755, and status clean after each.
func TestRemoteCLIRootDaemonKeepsOwners(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root")
	}
	srv := s3test.Start(t)
	const url, user = "s3://tb-owners-daemon/x", 1234
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
	t.Cleanup(func() { b.run("watch", "--stop") })
	b.ok("watch", "--detach")
	check := func(step string, paths ...string) {
		t.Helper()
		ownedBy(t, b, user, step, paths...)
		if r := b.ok("status"); !strings.HasPrefix(r.stdout, "no changes since ") {
			t.Errorf("status after %s:\n%s", step, r.stdout)
		}
		if r := b.ok("diff"); r.stdout != "" {
			t.Errorf("diff after %s:\n%s", step, r.stdout)
		}
	}
	check("clone", "notes.txt", "tool")
	pushSetuid(a, "tool2", "#!/bin/sh\n")
	pushSetuid(a, "tool", "#!/bin/sh\necho\n")
	b.ok("pull", "--apply")
	check("pull --apply", "notes.txt", "tool", "tool2")
	b.ok("undo", "--path", "tool")
	check("undo --path tool", "notes.txt", "tool", "tool2")
	b.ok("redo")
	check("redo", "notes.txt", "tool", "tool2")
	b.ok("undo", "2")
	check("undo 2", "notes.txt", "tool")
	b.ok("redo", "2")
	check("redo 2", "notes.txt", "tool", "tool2")
	b.ok("restore", "@2") // tool as turn 1 left it: status shows it
	b.ok("restore", "@3")
	check("restore @2, restore @3", "notes.txt", "tool", "tool2")
}

// TestRemoteCLIUnprivilegedNoSpecialBits: a user (uid 65534, not root)
// clones, pulls --apply, undoes and redoes states another machine
// captured with a setuid, setgid tool. Not as root, turnback sets no
// owner, but the remote's setuid and setgid bits must not come either:
// the tool would run as this user for anyone who can run it. Status is
// clean after each.
func TestRemoteCLIUnprivilegedNoSpecialBits(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to run the binary as another user")
	}
	srv := s3test.Start(t)
	const url, nobody = "s3://tb-unpriv-suid/x", 65534
	a := remoteEnv(t, srv, "a")
	a.ok("remote", "set", url, "--create")
	pushSetuid(a, "tool", "#!/bin/sh\n")
	b := remoteEnv(t, srv, "b")
	for p := b.base; p != "/"; p = filepath.Dir(p) {
		if fi, err := os.Stat(p); err == nil && fi.Mode().Perm()&0o055 != 0o055 {
			if err := os.Chmod(p, fi.Mode().Perm()|0o055); err != nil {
				t.Fatal(err)
			}
		}
	}
	err := filepath.WalkDir(b.base, func(p string, _ fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, nobody, nobody)
	})
	if err != nil {
		t.Fatal(err)
	}
	b.bin = copyBinaries(t, b.bin, b.base)
	run := func(args ...string) string {
		t.Helper()
		cmd := b.execCommand(args...)
		cmd.Dir = b.base
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("turnback %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	owned := func(step string, paths ...string) {
		t.Helper()
		for _, p := range paths {
			fi, err := os.Lstat(b.path(p))
			if err != nil {
				t.Fatalf("%s: %v", step, err)
			}
			if st := fi.Sys().(*syscall.Stat_t); st.Uid != nobody || fi.Mode() != 0o755 {
				t.Errorf("%s: %s: owner %d mode %v, want %d -rwxr-xr-x", step, p, st.Uid, fi.Mode(), nobody)
			}
		}
	}
	check := func(step string, paths ...string) {
		t.Helper()
		owned(step, paths...)
		if out := run("-C", b.dir, "status"); !strings.HasPrefix(out, "no changes since ") {
			t.Errorf("status after %s:\n%s", step, out)
		}
	}
	run("clone", url, b.dir, "--session", "default")
	check("clone", "tool")
	pushSetuid(a, "tool2", "#!/bin/sh\n")
	pushSetuid(a, "tool", "#!/bin/sh\necho\n")
	run("-C", b.dir, "pull", "--apply")
	check("pull --apply", "tool", "tool2")
	run("-C", b.dir, "undo")
	check("undo", "tool", "tool2")
	run("-C", b.dir, "redo")
	check("redo", "tool", "tool2")
	run("-C", b.dir, "undo", "--path", "tool")
	run("-C", b.dir, "redo")
	check("undo --path tool, redo", "tool", "tool2")
	run("-C", b.dir, "restore", "@1") // tool as turn 1 left it: status shows it
	owned("restore @1", "tool")
}

// TestRemoteCLIRootCrashKeepsOwners: root's restore of a pulled
// session's last state (what clone does) and undo of a pulled turn are
// killed at every step in turn; the next command finishes or rolls
// them back. Every file is the user's, no setuid or setgid bit
// appears, and once the command is finished status is clean.
func TestRemoteCLIRootCrashKeepsOwners(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root")
	}
	srv := s3test.Start(t)
	// url1 holds turn 1, url2 turns 1 and 2: a clone of url1 pulls
	// turn 2 from url2.
	const url1, url2, user = "s3://tb-owners-crash/one", "s3://tb-owners-crash/two", 1234
	one, two := "#!/bin/sh\n", "#!/bin/sh\necho two\n"
	a := remoteEnv(t, srv, "a")
	a.ok("remote", "set", url1, "--create")
	a.write("notes.txt", "notes")
	tool := func(data string) {
		a.ok("snap")
		a.write("tool", data)
		a.chmod("tool", 0o755|fs.ModeSetuid|fs.ModeSetgid)
		a.write("notes.txt", data)
		a.ok("end")
		a.ok("push")
	}
	tool(one)
	a.ok("remote", "set", url2)
	a.ok("push")
	tool(two)
	check := func(b *cliEnv, step string) {
		t.Helper()
		err := filepath.WalkDir(b.dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			fi, err := d.Info()
			if err != nil {
				return err
			}
			st := fi.Sys().(*syscall.Stat_t)
			if st.Uid != user || st.Gid != user || fi.Mode()&(fs.ModeSetuid|fs.ModeSetgid|fs.ModeSticky) != 0 {
				t.Errorf("%s: %s: owner %d:%d mode %v", step, p, st.Uid, st.Gid, fi.Mode())
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		op   []string
		pull []string
		done string // notes.txt once op is done
	}{
		{[]string{"restore", "@2"}, []string{"pull"}, two},
		{[]string{"undo"}, []string{"pull", "--apply"}, one},
	} {
		name := strings.Join(c.op, " ")
		steps := 0
		for n := 1; ; n++ {
			b := remoteEnv(t, srv, "b")
			if err := os.Chown(b.dir, user, user); err != nil {
				t.Fatal(err)
			}
			if r := b.exec(b.base, nil, "clone", url1, b.dir, "--session", "default"); r.code != 0 {
				t.Fatalf("%s", r)
			}
			b.ok("remote", "set", url2)
			b.ok(c.pull...)
			cmd := b.with(fmt.Sprintf("TURNBACK_TEST_CRASH_AT=%d", n)).command(c.op...)
			out, err := cmd.CombinedOutput()
			step := fmt.Sprintf("%s killed at step %d", name, n)
			if cmd.ProcessState == nil || err != nil && cmd.ProcessState.Exited() {
				t.Fatalf("%s: %v\n%s", step, err, out)
			}
			if err == nil {
				steps = n - 1
				check(b, name)
				break
			}
			st := b.ok("status") // finishes or rolls back the killed command
			check(b, step)
			if string(b.read("notes.txt")) == c.done && !strings.HasPrefix(st.stdout, "no changes since ") {
				t.Errorf("%s: status after the recovery:\n%s", step, st.stdout)
			}
		}
		if steps < 3 {
			t.Fatalf("%s: %d steps, want more", name, steps)
		}
		t.Logf("%s: killed at each of %d steps", name, steps)
	}
}
