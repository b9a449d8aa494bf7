//go:build linux

package walker

import (
	"io/fs"
	"syscall"
)

// statOf extracts the change-detection fields of fi.
func statOf(fi fs.FileInfo) fileStat {
	st := fileStat{size: fi.Size(), mtime: fi.ModTime().UnixNano(), mode: uint32(fi.Mode())}
	if s, ok := fi.Sys().(*syscall.Stat_t); ok {
		st.ctime = s.Ctim.Nano()
		st.ino = s.Ino
	}
	return st
}

// noAtime asks the kernel not to update the access time of files that
// capture reads (capture must leave the work tree exactly as it was).
const noAtime = syscall.O_NOATIME
