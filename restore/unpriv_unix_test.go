//go:build unix

package restore

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
)

// unprivileged makes the rest of the test run as a user without root's
// power to ignore permission bits. As root it re-runs this one test in a
// child process as uid/gid 65534 and reports whether it returned true:
// the caller then returns, the child having run the body. Without root
// (or in the child) it returns false and the body runs here.
func unprivileged(t *testing.T) (done bool) {
	t.Helper()
	if os.Geteuid() != 0 || os.Getenv(envUnprivileged) != "" {
		return false
	}
	base, err := os.MkdirTemp("", "restore-unpriv-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(base)
	if err := os.Chmod(base, 0o755); err != nil {
		t.Fatal(err)
	}
	tmp := filepath.Join(base, "tmp")
	if err := os.Mkdir(tmp, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(tmp, 0o1777); err != nil {
		t.Fatal(err)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(base, "restore.test")
	data, err := os.ReadFile(self)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, data, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-test.run=^"+t.Name()+"$", "-test.count=1", "-test.v")
	cmd.Dir = tmp
	cmd.Env = append(os.Environ(), envUnprivileged+"=1", "TMPDIR="+tmp, "HOME="+tmp, "GOCOVERDIR=")
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("run as uid 65534: %v\n%s", err, out)
	}
	if !bytes.Contains(out, []byte("--- PASS: "+t.Name())) {
		t.Fatalf("run as uid 65534: the test did not pass:\n%s", out)
	}
	t.Logf("ran as uid 65534")
	return true
}
