//go:build unix

package walker

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"syscall"
	"testing"
)

// rerunUnprivileged hands the calling top-level test to a copy of the
// test binary running as user nobody, when the tests run as root (to
// root, permission bits do not make anything unreadable). It reports
// whether it did; the caller then returns. It skips the test if the
// child cannot be started.
func rerunUnprivileged(t *testing.T) bool {
	t.Helper()
	if os.Geteuid() != 0 {
		return false
	}
	if runtime.GOOS != "linux" {
		t.Skip("running as root: permission bits do not make paths unreadable")
	}
	const nobody = 65534
	exe, err := os.Executable()
	if err != nil {
		t.Skipf("running as root and cannot find the test binary: %v", err)
	}
	tmp, err := os.MkdirTemp("", "walker-unpriv-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(tmp) })
	if err := os.Chown(tmp, nobody, nobody); err != nil {
		t.Skipf("running as root and cannot prepare a directory for nobody: %v", err)
	}
	bin := filepath.Join(tmp, "walker.test")
	if err := copyFile(exe, bin); err != nil {
		t.Skipf("running as root and cannot copy the test binary: %v", err)
	}
	cmd := exec.Command(bin, "-test.run=^"+regexp.QuoteMeta(t.Name())+"$", "-test.v", "-test.count=1")
	cmd.Dir = tmp
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp, "HOME="+tmp)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Skipf("running as root and cannot run the test as nobody: %v", err)
	}
	t.Logf("re-ran as uid %d:\n%s", nobody, out)
	switch {
	case err != nil:
		t.Fatalf("the unprivileged run failed: %v", err)
	case bytes.Contains(out, []byte("--- SKIP: "+t.Name())):
		t.Skip("skipped in the unprivileged run")
	case !bytes.Contains(out, []byte("--- PASS: "+t.Name())):
		t.Fatal("the unprivileged run did not run the test")
	}
	return true
}

// copyFile copies the test binary (tens of MiB: read whole) into a
// fresh directory.
func copyFile(from, to string) error {
	data, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	return os.WriteFile(to, data, 0o755)
}
