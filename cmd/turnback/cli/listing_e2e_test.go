package cli

import (
	"errors"
	"os"
	"testing"
	"time"
)

// TestListingCacheMtimeSetBack: the built binary, no daemon. Once a snap
// has recorded a directory's names (the directory older than the racy
// window), a later capture takes them from the record while the
// directory's stat is unchanged. Here a file is added and another
// removed, and the directory's mtime is then set back to what it was:
// the end still captures both changes (the directory's ctime moved),
// undo puts the folder back and redo brings the turn again, byte for
// byte.
func TestListingCacheMtimeSetBack(t *testing.T) {
	t.Parallel()
	e := newStoreEnv(t)
	e.writeBytes("src/a.txt", []byte("a\n"))
	e.writeBytes("src/b.txt", []byte("b\n"))
	e.writeBytes("src/deep/c.txt", []byte("c\n"))
	time.Sleep(300 * time.Millisecond) // older than the racy window
	e.ok("snap")
	e.ok("snap", "-m", "names recorded")
	fi, err := os.Stat(e.path("src"))
	if err != nil {
		t.Fatal(err)
	}
	e.writeBytes("src/new.txt", []byte("new\n"))
	if err := os.Remove(e.path("src/a.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(e.path("src"), fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	e.ok("end")
	e.ok("undo")
	if got := string(e.read("src/a.txt")); got != "a\n" {
		t.Errorf("after undo src/a.txt is %q", got)
	}
	if _, err := os.Lstat(e.path("src/new.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("after undo src/new.txt is still there: %v", err)
	}
	e.ok("redo")
	if got := string(e.read("src/new.txt")); got != "new\n" {
		t.Errorf("after redo src/new.txt is %q", got)
	}
	if _, err := os.Lstat(e.path("src/a.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("after redo src/a.txt is back: %v", err)
	}
	if got := string(e.read("src/deep/c.txt")); got != "c\n" {
		t.Errorf("src/deep/c.txt is %q", got)
	}
}
