//go:build unix

package cas

import (
	"io/fs"
	"syscall"
)

// allocated returns the disk space fi occupies (sparse files count what
// is allocated, as du does).
func allocated(fi fs.FileInfo) int64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return int64(st.Blocks) * 512
	}
	return fi.Size()
}
