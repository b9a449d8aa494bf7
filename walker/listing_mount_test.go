//go:build linux && (amd64 || arm64)

package walker

import (
	"context"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/turnback/turnback/cas"
	"golang.org/x/sys/unix"
)

// mountOn mounts on dir (mount's arguments args), skipping the test
// where that cannot be done (not root, no such filesystem here); the
// test's end unmounts it.
func mountOn(t *testing.T, dir string, args ...string) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("mounting needs root")
	}
	if out, err := exec.Command("mount", append(args, dir)...).CombinedOutput(); err != nil {
		t.Skipf("cannot mount %v here: %v %s", args, err, out)
	}
	t.Cleanup(func() { exec.Command("umount", dir).Run() })
}

func unmount(t *testing.T, dir string) {
	t.Helper()
	if out, err := exec.Command("umount", dir).CombinedOutput(); err != nil {
		t.Fatalf("umount %s: %v %s", dir, err, out)
	}
}

// snapClosed is snap with the root closed once done (a filesystem
// still open cannot be unmounted).
func snapClosed(t *testing.T, dir string, s *cas.Store, opts Options) *Result {
	t.Helper()
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	res, err := Capture(context.Background(), root, s, opts)
	if err != nil {
		t.Fatalf("Capture: %v", err)
	}
	return res
}

// dirStatOf is what a record's listing is vouched by, as lstat shows it.
func dirStatOf(t *testing.T, p string) [5]int64 {
	t.Helper()
	var st unix.Stat_t
	if err := unix.Lstat(p, &st); err != nil {
		t.Fatal(err)
	}
	return [5]int64{int64(st.Dev), int64(st.Ino), st.Size, st.Mtim.Nano(), st.Ctim.Nano()}
}

// TestListingOverlayLower: on overlayfs a merged directory's stat is
// its upper directory's, while its names are those of every layer. A
// name added to a lower layer while the overlay is not mounted (which
// overlayfs allows) is in the directory once it is mounted again, with
// its stat (device, inode, size, times) unchanged: a capture must still
// see it.
func TestListingOverlayLower(t *testing.T) {
	top := t.TempDir()
	lower, upper, work, mnt := abs(top, "lower"), abs(top, "upper"), abs(top, "work"), abs(top, "mnt")
	writeFiles(t, lower, map[string]string{"d/a.txt": "a"})
	for _, d := range []string{upper, work, mnt} {
		mkdirAll(t, d, ".")
	}
	opts := "lowerdir=" + lower + ",upperdir=" + upper + ",workdir=" + work
	mountOn(t, mnt, "-t", "overlay", "overlay", "-o", opts)
	writeFile(t, mnt, "d/b.txt", "b", 0o644) // d is merged now: its stat is its upper directory's
	time.Sleep(settle)
	s := newStore(t)
	cache := NewStatCache(s.Backend())
	r1 := snapClosed(t, mnt, s, Options{Cache: cache})
	before := dirStatOf(t, abs(mnt, "d"))
	unmount(t, mnt)
	writeFile(t, lower, "d/c.txt", "c", 0o644)
	mountOn(t, mnt, "-t", "overlay", "overlay", "-o", opts)
	if after := dirStatOf(t, abs(mnt, "d")); after != before {
		t.Skipf("the overlay mounted again shows d with another stat here (%v, was %v)", after, before)
	}
	r2 := snap(t, mnt, s, Options{Cache: cache, Previous: r1.Root})
	got := flatten(t, s, r2.Root)
	if _, ok := got["d/c.txt"]; !ok {
		t.Errorf("d/c.txt, added to the lower layer, is not captured")
	}
	sameSnapshot(t, "after the lower layer changed", got, fullWalk(t, mnt))
}
