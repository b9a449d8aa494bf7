//go:build linux

package cas

import (
	"os"

	"golang.org/x/sys/unix"
)

// dropCache tells the kernel that the cached pages of f, all synced, will
// not be needed soon, so that it frees them now (see "Pack files" in the
// package doc). Only advice: an error changes nothing.
func dropCache(f *os.File) {
	_ = unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_DONTNEED)
}
