//go:build unix

package storedir

import (
	"errors"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// dirWritable reports whether this process may create files in dir (an
// absent dir counts as writable: its parent was checked). EROFS shows
// even to root.
func dirWritable(dir string) bool {
	if _, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
		return true
	}
	return unix.Access(dir, unix.W_OK) == nil
}

// GiveToOwner makes the named files in dir, written by root, owned by
// dir's owner, so that the user whose store it is can read them.
// Errors are ignored: the files stay as they are.
func GiveToOwner(dir string, names ...string) {
	if os.Geteuid() != 0 {
		return
	}
	var st unix.Stat_t
	if unix.Stat(dir, &st) != nil || st.Uid == 0 {
		return
	}
	for _, n := range names {
		_ = os.Lchown(filepath.Join(dir, n), int(st.Uid), int(st.Gid))
	}
}
