//go:build linux

package turnback_test

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/turnback/turnback"
	"github.com/turnback/turnback/internal/testtier"
)

// settleTmpfs mounts a tmpfs of mib MiB on a new temporary directory
// (root only; the test is skipped otherwise).
func settleTmpfs(t *testing.T, mib int) string {
	t.Helper()
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", fmt.Sprintf("size=%dm", mib), "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs (needs root): %v: %s", err, out)
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", dir).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v: %s", dir, err, out)
		}
	})
	return dir
}

// settleFill writes file until its disk is full.
func settleFill(t *testing.T, file string) {
	f, err := os.Create(file)
	if err != nil {
		t.Error(err)
		return
	}
	defer f.Close()
	for _, n := range []int{1 << 20, 4096, 1} {
		buf := make([]byte, n)
		for {
			if _, err := f.Write(buf); err != nil {
				if !errors.Is(err, syscall.ENOSPC) {
					t.Error(err)
				}
				break
			}
		}
	}
}

// TestSettleFullDiskKeepsAmendedCheckpoint: the realistic form of
// TestSettleFaultKeepsAmendedCheckpoint, no fault injected. The store
// is on a small tmpfs. The user edits b just before a rule-changing
// restore replaces it (the restore saves the edit, amends its
// checkpoint); then the disk fills (another process), after the
// restore reserved its commit. The recapture re-reads 6,000 files the
// restore un-ignores, whose content the store has: it writes no pack,
// only records, and past 512 KiB the store tries to open its database
// for writing, which the full disk refuses; that drops every unsynced
// write, the amended checkpoint's trees too. The commit then fits its
// reserved room and succeeds, naming a checkpoint the store lacks:
// verify fails and the user's edit of b cannot be brought back.
func TestSettleFullDiskKeepsAmendedCheckpoint(t *testing.T) {
	testtier.Slow(t) // 6,000 files, a tmpfs
	const user = "b2, the user's edit during the restore"
	fsDir := settleTmpfs(t, 100)
	ctx := t.Context()
	work := t.TempDir()
	store := filepath.Join(fsDir, "store")
	w := func(rel, data string) {
		p := filepath.Join(work, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	read := func(rel string) string {
		b, err := os.ReadFile(filepath.Join(work, rel))
		if err != nil {
			return "<" + err.Error() + ">"
		}
		return string(b)
	}
	open := func() *turnback.Repo {
		r, err := turnback.Open(ctx, work, turnback.Options{Store: store, LockWait: -1})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	var files []string
	for d := range 40 { // 150 files each: under the large-directory rule
		for f := range 150 {
			files = append(files, fmt.Sprintf("d%02d/a-file-with-a-rather-long-name-for-its-record-%04d.txt", d, f))
		}
	}
	w(".gitignore", "")
	w("b", "b0")
	for i, f := range files {
		w(f, fmt.Sprintf("file %d\n", i))
	}
	r := open()
	target, err := r.Snap(ctx, "all captured")
	if err != nil {
		t.Fatal(err)
	}
	w(".gitignore", "d*/\n")
	w("b", "b1")
	if _, err := r.Snap(ctx, "d ignored"); err != nil {
		t.Fatal(err)
	}
	r.Close()
	// The files' times change: the recapture reads them again (their
	// content is in the store) and records their stat data anew.
	later := time.Now().Add(-time.Hour) // in the past: trusted
	for _, f := range files {
		if err := os.Chtimes(filepath.Join(work, f), later, later); err != nil {
			t.Fatal(err)
		}
	}
	r = open()
	defer func() { r.Close() }()
	filler := filepath.Join(fsDir, "filler")
	r.SetRestoreHook(func(step string) error {
		switch step {
		case "place b":
			w("b", user)
		case "commit":
			settleFill(t, filler)
		}
		return nil
	})
	res, err := r.Restore(ctx, target.Snapshot.String(), turnback.RestoreOptions{})
	r.SetRestoreHook(nil)
	if err != nil {
		t.Logf("restore on the full disk: %v (the next command finishes it)", err)
	} else if len(res.Conflicts) != 1 || res.Conflicts[0].Path != "b" {
		t.Fatalf("restore: conflicts %v; want b, displaced", res.Conflicts)
	}
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Status(ctx); err != nil {
		t.Fatalf("status after space was freed: %v", err)
	}
	if v, err := r.Verify(ctx); err != nil {
		t.Errorf("verify after the restore: %v %+v", err, v.Problems)
	}
	cps, err := r.Checkpoints(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var cp string
	for _, c := range cps {
		if strings.HasPrefix(c.Command, "restore") {
			cp = c.ID
		}
	}
	if cp == "" {
		t.Fatalf("no checkpoint of the restore in %+v", cps)
	}
	if _, err := r.Restore(ctx, cp, turnback.RestoreOptions{}); err != nil {
		t.Fatalf("restore of the restore's checkpoint %.12s: %v", cp, err)
	}
	if got := read("b"); got != user {
		t.Fatalf("after restore of the checkpoint %.12s, b holds %q", cp, got)
	}
}
