//go:build linux

package cli

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/turnback/turnback/internal/testtier"
	"github.com/turnback/turnback/manifest/treetest"
)

// Adversarial scenarios through the binary (the "attack" helper's tests).

// TestAttackDetachFreshStore: "turnback watch --detach" as the first
// command of a folder, with a store directory that does not exist yet
// (--store, and the default location under XDG_DATA_HOME). startDaemon
// opens watch.log in the store before the daemon creates the store, and
// the daemon then refused the directory as "not a turnback store
// (watch.log)": exit 1, and every later command refused that store too.
func TestAttackDetachFreshStore(t *testing.T) {
	testtier.Slow(t)
	if !isLinux() {
		t.Skip("inotify")
	}
	e := newBinEnv(t)
	for _, viaXDG := range []bool{false, true} {
		base := t.TempDir()
		wt := filepath.Join(base, "wt")
		treetest.PutAll(t, wt, map[string]string{"f": "x"})
		e.setenv("TURNBACK_LOCK_WAIT", "5s")
		e.setenv("TURNBACK_AUTO_WATCH", "0")
		e.setenv("XDG_DATA_HOME", filepath.Join(base, "xdg"))
		args := []string{"-C", wt}
		if !viaXDG {
			args = append(args, "--store", filepath.Join(base, "st"))
		}
		tb := func(a ...string) (string, string, int) {
			return e.execOut("", append(append([]string{}, args...), a...)...)
		}
		t.Cleanup(func() { tb("watch", "--stop") })
		so, se, code := tb("--json", "watch", "--detach")
		if code != 0 {
			t.Fatalf("xdg=%v: watch --detach on a fresh store: exit %d\n%s%s", viaXDG, code, so, se)
		}
		var st struct {
			PID int `json:"pid"`
		}
		if err := json.Unmarshal([]byte(so), &st); err != nil || st.PID == 0 {
			t.Fatalf("watch --detach --json: %q: %v", so, err)
		}
		if so, se, code := tb("snap"); code != 0 {
			t.Fatalf("xdg=%v: snap after watch --detach: exit %d\n%s%s", viaXDG, code, so, se)
		}
		if so, se, code := tb("watch", "--stop"); code != 0 || !strings.HasPrefix(so, "stopped") {
			t.Fatalf("watch --stop: exit %d\n%s%s", code, so, se)
		}
		waitGone(t, time.Now(), "watch --stop", st.PID)
		if _, err := os.Stat(wt); err != nil {
			t.Fatal(err)
		}
	}
}

// TestAttackWatchQuotesWorkTree: watch --detach, --status and --stop
// print the work tree quoted (invariant 7): a folder named with ESC and
// a newline printed raw cleared the screen and split the line.
func TestAttackWatchQuotesWorkTree(t *testing.T) {
	if !isLinux() {
		t.Skip("inotify, and names with control characters")
	}
	t.Parallel() // only the binary reads the environment (e.extra)
	e := newBinEnv(t)
	base := e.base
	wt := filepath.Join(base, "w\x1b[2Jx\ny")
	treetest.PutAll(t, wt, map[string]string{"f": "x"})
	e.extra = append(e.extra, "TURNBACK_LOCK_WAIT=5s", "TURNBACK_AUTO_WATCH=0", "TURNBACK_STORE="+filepath.Join(base, "st"))
	tb := func(a ...string) string {
		t.Helper()
		so, se, code := e.execOut("", append([]string{"-C", wt}, a...)...)
		if code != 0 {
			t.Fatalf("turnback %v: exit %d\n%s%s", a, code, so, se)
		}
		return so + se
	}
	t.Cleanup(func() { e.execOut("", "-C", wt, "watch", "--stop") })
	for _, args := range [][]string{{"snap"}, {"watch", "--detach"}, {"watch", "--status"}, {"watch", "--stop"}, {"watch", "--stop"}} {
		out := tb(args...)
		if strings.ContainsAny(out, "\x1b") || strings.Count(strings.TrimSuffix(out, "\n"), "\n") > 1 {
			t.Errorf("turnback %v printed the name raw:\n%q", args, out)
		}
	}
}

// TestAttackReferenceInsideWorkTree: lfs.storage names a directory inside
// the work tree, so the LFS object of a large file is itself a file of
// the work tree (and its own reference). A turn adds the file and its
// object; undo deletes both. Before: both counted as protected by the
// object (no warning), the undo's checkpoint kept neither (a reference
// held them), and "turnback restore <checkpoint>", printed as the way
// back, could restore neither: the content was lost. Now a reference
// inside the work tree (outside .git) protects nothing: snap warns, the
// checkpoint holds the content, and restoring it brings the file back.
func TestAttackReferenceInsideWorkTree(t *testing.T) {
	t.Parallel()
	e, _ := newLargeEnv(t)
	e.extra = append(e.extra, "TURNBACK_SIZE_LIMIT=1K")
	e.write(".git/config", "[lfs]\n\tstorage = ../lfsstore\n")
	e.write("a", "small\n")
	e.ok("snap")
	data := largeData(31, 64<<10)
	sum := sha256.Sum256(data)
	h := hex.EncodeToString(sum[:])
	e.write("N.bin", string(data))
	if err := os.MkdirAll(e.path("lfsstore/objects/"+h[:2]+"/"+h[2:4]), 0o755); err != nil {
		t.Fatal(err)
	}
	e.write("lfsstore/objects/"+h[:2]+"/"+h[2:4]+"/"+h, string(data))
	r := e.ok("end")
	if !strings.Contains(r.stderr, "N.bin (64.0 KiB) is unprotected") {
		t.Errorf("end did not warn that N.bin is unprotected:\n%s", r.stderr)
	}
	doc := e.jsonOK("undo")
	absent(t, e.path("N.bin"))
	if code := e.run("restore", doc.Checkpoint).code; code != 0 {
		t.Fatalf("restore %s: exit %d", doc.Checkpoint, code)
	}
	sameBytes(t, e.path("N.bin"), data)
}

// TestAttackReadOnlyStoreLargeFile: status and diff on a store the user
// cannot write (issue 13: reading commands work on a read-only store)
// failed with "cas: store opened read-only" as soon as the folder held a
// file over the size limit: the capture tried to record a reference
// for it.
func TestAttackReadOnlyStoreLargeFile(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		t.Skip("needs root to run the binary as another user")
	}
	e := newCLI(t, "w")
	base := e.base
	for _, d := range []string{filepath.Dir(base), base} {
		if err := os.Chmod(d, 0o777); err != nil {
			t.Fatal(err)
		}
	}
	// A copy of the binaries that the other user can run.
	e.bin = copyBinaries(t, e.bin, base)
	e = e.with("TURNBACK_SIZE_LIMIT=1K", "HOME="+base)
	wt, store := e.dir, filepath.Join(base, "s")
	run := func(args ...string) (string, string, int) {
		t.Helper()
		cmd := e.execCommand(append([]string{"-C", wt, "--store", store}, args...)...)
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
		var so, se strings.Builder
		cmd.Stdout, cmd.Stderr = &so, &se
		err := cmd.Run()
		if cmd.ProcessState == nil {
			t.Fatalf("turnback %v: %v", args, err)
		}
		return so.String(), se.String(), cmd.ProcessState.ExitCode()
	}
	if err := os.MkdirAll(wt, 0o777); err != nil {
		t.Fatal(err)
	}
	treetest.PutAll(t, wt, map[string]string{"a": "a\n"})
	if so, se, code := run("snap"); code != 0 {
		t.Fatalf("snap: exit %d\n%s%s", code, so, se)
	}
	treetest.PutPath(t, filepath.Join(wt, "big"), string(largeData(41, 8<<10)))
	_ = filepath.Walk(store, func(p string, fi os.FileInfo, err error) error {
		if err == nil {
			_ = os.Chmod(p, fi.Mode().Perm()&^0o222)
		}
		return nil
	})
	t.Cleanup(func() {
		_ = filepath.Walk(store, func(p string, fi os.FileInfo, err error) error {
			if err == nil {
				_ = os.Chmod(p, fi.Mode().Perm()|0o200)
			}
			return nil
		})
	})
	if so, se, code := run("status"); code != 0 || so != "A big\n" {
		t.Errorf("status on a read-only store: exit %d\n%s%s", code, so, se)
	}
	if so, se, code := run("diff"); code != 0 || !strings.Contains(so, "b/big") {
		t.Errorf("diff on a read-only store: exit %d\n%s%s", code, so, se)
	}
}
