//go:build unix

package treetest

import (
	"io/fs"
	"syscall"
)

// allocatedBytes is the space the file fi describes takes on disk.
func allocatedBytes(fi fs.FileInfo) int64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return int64(st.Blocks) * 512
	}
	return fi.Size()
}
