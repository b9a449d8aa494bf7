//go:build unix

package storedir

import (
	"errors"
	"os"

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
