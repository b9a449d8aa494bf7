//go:build unix

package watch

import (
	"io/fs"
	"syscall"
)

// idOf returns the identity of the file fi describes (device and inode),
// zero when the system does not tell.
func idOf(fi fs.FileInfo) fileID {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return fileID{dev: uint64(st.Dev), ino: uint64(st.Ino)}
	}
	return fileID{}
}
