//go:build unix

package ref

import (
	"os"
	"syscall"
)

// openNoBlock opens name with O_NONBLOCK: opening a FIFO then returns at
// once instead of waiting for a writer. Reads of a regular file ignore
// the flag. It leaves the access time alone where the platform and the
// file's owner allow (O_NOATIME).
func openNoBlock(name string) (*os.File, error) {
	flags := os.O_RDONLY | syscall.O_NONBLOCK | syscall.O_NOCTTY
	if noAtime != 0 {
		if f, err := os.OpenFile(name, flags|noAtime, 0); err == nil {
			return f, nil
		}
	}
	return os.OpenFile(name, flags, 0)
}

// linkCount returns the number of hard links of fi's file, 1 if unknown.
func linkCount(fi os.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink)
	}
	return 1
}
