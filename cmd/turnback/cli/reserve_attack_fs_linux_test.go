package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// raLoopMount mounts a new image of size MiB made by mkfs (with args)
// and returns its mount point, or skips the test.
func raLoopMount(t *testing.T, mib int64, mkfs string, args ...string) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root to mount a loop device")
	}
	needTools(t, mkfs, "mount", "umount")
	dir := t.TempDir()
	img, mnt := filepath.Join(dir, "fs.img"), filepath.Join(dir, "mnt")
	if err := os.Mkdir(mnt, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(img, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(img, mib<<20); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(mkfs, append(args, img)...).CombinedOutput(); err != nil {
		t.Skipf("%s: %v\n%s", mkfs, err, out)
	}
	if out, err := exec.Command("mount", "-o", "loop", img, mnt).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a loop device here: %v\n%s", err, out)
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", mnt).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v\n%s", mnt, err, out)
		}
	})
	return mnt
}

// TestReserveAttackFilesystems: the store on tmpfs and XFS (Reserve
// allocates ahead: the undo commits to the overlay log) and on ext2
// (fallocate gives EOPNOTSUPP: Reserve opens the database for
// writing). On each, an undo of a small turn killed at the first step
// after its journal is finished by the next command, the store
// verifies, and redo and undo go on working.
func TestReserveAttackFilesystems(t *testing.T) {
	t.Parallel()
	for _, fs := range []struct {
		name  string
		mount func(t *testing.T) string
	}{
		{"tmpfs", func(t *testing.T) string { return mountTmpfs(t, 100) }},
		{"xfs", func(t *testing.T) string { return raLoopMount(t, 320, "mkfs.xfs", "-q") }},
		{"ext2", func(t *testing.T) string { return raLoopMount(t, 200, "mkfs.ext2", "-q", "-F") }},
	} {
		t.Run(fs.name, func(t *testing.T) {
			t.Parallel()
			w := newRAWorldIn(t, filepath.Join(fs.mount(t), "store"))
			e := w.e
			if !raKill(t, e, 3, "undo") {
				t.Fatal("undo ran to its end")
			}
			e.ok("status")
			e.same("after the recovered undo", w.undone)
			raVerify(t, e, "after the recovered undo")
			e.ok("redo")
			e.same("after redo", w.edit)
			raVerify(t, e, "after redo")
			e.ok("undo")
			e.same("after undo", w.undone)
			raVerify(t, e, "after undo")
		})
	}
}
