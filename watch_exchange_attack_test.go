//go:build linux

package turnback

import (
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// TestWatchExchangeDirs: two directories swapped atomically
// (renameat2 RENAME_EXCHANGE, as restore does) keep their watches
// right: edits made after the swap inside either, at any depth, are
// seen by the daemon's captures.
func TestWatchExchangeDirs(t *testing.T) {
	for _, each := range []bool{true, false} {
		t.Run(map[bool]string{true: "snap after each step", false: "snap at the end"}[each], func(t *testing.T) {
			exchangeDirs(t, each)
		})
	}
}

func exchangeDirs(t *testing.T, each bool) {
	ctx := t.Context()
	wt, store := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(wt, "a", "f"), "a")
	writeFile(t, filepath.Join(wt, "a", "sa", "deep", "g"), "a deep")
	writeFile(t, filepath.Join(wt, "p", "b", "f"), "b")
	writeFile(t, filepath.Join(wt, "p", "b", "sb", "g"), "b sub")
	r, err := Open(ctx, wt, Options{Store: store})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if err := r.Watch(ctx, WatchOptions{}); err != nil {
		t.Fatal(err)
	}
	snapLikeFullWalk(t, r, wt, "before")
	swap := func() {
		t.Helper()
		if err := unix.Renameat2(unix.AT_FDCWD, filepath.Join(wt, "a"), unix.AT_FDCWD, filepath.Join(wt, "p", "b"), unix.RENAME_EXCHANGE); err != nil {
			t.Skip("no RENAME_EXCHANGE here:", err)
		}
	}
	mid := func(msg string) {
		t.Helper()
		if each {
			snapLikeFullWalk(t, r, wt, msg)
		}
	}
	swap()
	mid("after the swap")
	writeFile(t, filepath.Join(wt, "a", "sb", "new1"), "1")
	writeFile(t, filepath.Join(wt, "p", "b", "sa", "deep", "new2"), "2")
	mid("after edits in both")
	swap()
	writeFile(t, filepath.Join(wt, "a", "sa", "deep", "new3"), "3")
	writeFile(t, filepath.Join(wt, "p", "b", "sb", "new4"), "4")
	mid("after the swap back and edits")
	swap()
	mid("third swap")
	writeFile(t, filepath.Join(wt, "a", "sb", "new5"), "5")
	writeFile(t, filepath.Join(wt, "p", "b", "sa", "new6"), "6")
	snapLikeFullWalk(t, r, wt, "after edits")
}
