//go:build unix

package gitindex

import (
	"io/fs"
	"syscall"
)

// StampOf is the Stamp of the index file path whose stat is fi.
func StampOf(path string, fi fs.FileInfo) Stamp {
	s := Stamp{Path: path, Size: fi.Size(), MTime: fi.ModTime().UnixNano()}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		s.Ino = uint64(st.Ino)
	}
	return s
}
