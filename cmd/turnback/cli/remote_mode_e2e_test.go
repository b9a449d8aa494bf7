//go:build unix

package cli

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/turnback/turnback/cas/s3/s3test"
)

// TestRemoteCLIPulledModesMasked: another machine records a 0777
// script, a 0666 file and a 0777 directory. Root clones, restores @N
// and pulls --apply them with umask 022 and 002 (and, with 002,
// through a watch daemon started with it): they land never group or
// world writable, nor beyond the umask (0755, 0644), and status is
// clean after each. undo and redo of the pulled turns do the
// same. A 0777 script made here keeps its mode through undo and redo.
func TestRemoteCLIPulledModesMasked(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		t.Skip("needs root")
	}
	srv := s3test.Start(t)
	for _, c := range []struct {
		umask  string
		daemon bool
		file   fs.FileMode // what 0666 lands as
		exec   fs.FileMode // what 0777 lands as
	}{
		{"022", false, 0o644, 0o755},
		{"002", false, 0o644, 0o755},
		{"002", true, 0o644, 0o755},
	} {
		name := c.umask
		if c.daemon {
			name += "-daemon"
		}
		t.Run(name, func(t *testing.T) {
			url := "s3://tb-modes-" + name + "/x"
			a := remoteEnv(t, srv, "a")
			a.ok("remote", "set", url, "--create")
			wide := func(paths ...string) {
				a.ok("snap")
				for _, p := range paths {
					if strings.HasSuffix(p, "/") {
						if err := os.MkdirAll(a.path(p), 0o755); err != nil {
							t.Fatal(err)
						}
						a.chmod(p, fs.ModeDir|0o777)
					} else if strings.HasSuffix(p, ".sh") {
						a.write(p, "#!/bin/sh\necho "+p+"\n")
						a.chmod(p, 0o777)
					} else {
						a.write(p, p+"\n")
						a.chmod(p, 0o666)
					}
				}
				a.ok("end")
				a.ok("push")
			}
			wide("wide.sh", "open.txt", "pub/", "pub/p.txt")
			b := remoteEnv(t, srv, "b")
			b.bin = umaskBinary(t, b, c.umask)
			if r := b.exec(b.base, nil, "clone", url, b.dir, "--session", "default"); r.code != 0 {
				t.Fatalf("%s", r)
			}
			if c.daemon {
				t.Cleanup(func() { b.run("watch", "--stop") })
				b.ok("watch", "--detach")
			}
			want := map[string]fs.FileMode{"wide.sh": c.exec, "open.txt": c.file, "pub": fs.ModeDir | c.exec, "pub/p.txt": c.file}
			check := func(step string) {
				t.Helper()
				for p, m := range want {
					fi, err := os.Lstat(b.path(p))
					if err != nil {
						t.Fatalf("%s: %v", step, err)
					}
					if fi.Mode() != m {
						t.Errorf("%s: %s is %v, want %v", step, p, fi.Mode(), m)
					}
				}
				if r := b.ok("status"); !strings.HasPrefix(r.stdout, "no changes since ") {
					t.Errorf("status after %s:\n%s", step, r.stdout)
				}
			}
			check("clone")
			wide("two.sh", "pub/two.txt")
			b.ok("pull")
			b.ok("restore", "@2")
			want["two.sh"], want["pub/two.txt"] = c.exec, c.file
			check("restore @2")
			wide("three.sh", "open.txt")
			b.ok("pull", "--apply")
			want["three.sh"] = c.exec
			check("pull --apply")
			b.ok("undo")
			delete(want, "three.sh")
			check("undo")
			b.ok("redo")
			want["three.sh"] = c.exec
			check("redo")
			b.ok("snap")
			b.write("mine.sh", "#!/bin/sh\n")
			b.chmod("mine.sh", 0o777)
			b.ok("end")
			b.ok("undo")
			b.ok("redo")
			want["mine.sh"] = 0o777
			check("undo and redo of a local turn")
		})
	}
}

// umaskBinary is a script that runs b's binary with umask mask, as a
// user whose shell sets it.
func umaskBinary(t *testing.T, b *cliEnv, mask string) string {
	t.Helper()
	p := filepath.Join(b.base, "turnback-umask-"+mask)
	script := fmt.Sprintf("#!/bin/sh\numask %s\nexec '%s' \"$@\"\n", mask, b.bin)
	if err := os.WriteFile(p, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestRemoteCLICrashPulledModesMasked: root's restore of a pulled
// state (@2, what clone does) and pull --apply, with umask 022, are
// killed at every step in turn; the next command finishes or rolls them
// back. No path of the folder is ever group or world writable (the
// remote's files are 0777 and 0666), and once the command is done
// status is clean.
func TestRemoteCLICrashPulledModesMasked(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		t.Skip("needs root")
	}
	srv := s3test.Start(t)
	// url1 holds turn 1, url2 turns 1 and 2: a clone of url1 pulls
	// turn 2 from url2.
	const url1, url2 = "s3://tb-modes-crash/one", "s3://tb-modes-crash/two"
	a := remoteEnv(t, srv, "a")
	a.ok("remote", "set", url1, "--create")
	turn := func(data string) {
		a.ok("snap")
		a.write("tool.sh", data)
		a.chmod("tool.sh", 0o777)
		a.write("notes.txt", data)
		a.chmod("notes.txt", 0o666)
		a.write("new/"+fmt.Sprint(len(data))+".txt", data)
		a.chmod("new", fs.ModeDir|0o777)
		a.ok("end")
		a.ok("push")
	}
	one, two := "#!/bin/sh\n", "#!/bin/sh\necho two\n"
	turn(one)
	a.ok("remote", "set", url2)
	turn(two)
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
			if fi.Mode().Perm()&0o022 != 0 {
				t.Errorf("%s: %s is %v", step, p, fi.Mode())
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
	}{
		{[]string{"restore", "@2"}, []string{"pull"}},
		{[]string{"pull", "--apply"}, []string{"pull"}},
	} {
		name := strings.Join(c.op, " ")
		steps := 0
		for n := 1; ; n++ {
			b := remoteEnv(t, srv, "b")
			b.bin = umaskBinary(t, b, "022")
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
				if st := b.ok("status"); !strings.HasPrefix(st.stdout, "no changes since ") {
					t.Errorf("%s: status:\n%s", name, st.stdout)
				}
				break
			}
			st := b.ok("status") // finishes or rolls back the killed command
			check(b, step)
			if string(b.read("notes.txt")) == two && !strings.HasPrefix(st.stdout, "no changes since ") {
				t.Errorf("%s: status after the recovery:\n%s", step, st.stdout)
			}
		}
		if steps < 3 {
			t.Fatalf("%s: %d steps, want more", name, steps)
		}
		t.Logf("%s: killed at each of %d steps", name, steps)
	}
}
