//go:build darwin

package walker

import (
	"io/fs"
	"syscall"
)

// statOf extracts the change-detection fields of fi.
func statOf(fi fs.FileInfo) fileStat {
	st := fileStat{size: fi.Size(), mtime: fi.ModTime().UnixNano(), mode: uint32(fi.Mode())}
	if s, ok := fi.Sys().(*syscall.Stat_t); ok {
		st.ctime = s.Ctimespec.Nano()
		st.ino = s.Ino
	}
	return st
}

const noAtime = 0
