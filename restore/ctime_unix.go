//go:build linux || darwin

package restore

import (
	"io/fs"
	"syscall"
)

// sameChange reports whether a and b, two lstats of one file, have the
// same change time: nothing wrote to it or changed its metadata between.
func sameChange(a, b fs.FileInfo) bool {
	sa, ok1 := a.Sys().(*syscall.Stat_t)
	sb, ok2 := b.Sys().(*syscall.Stat_t)
	return ok1 && ok2 && ctimeOf(sa) == ctimeOf(sb)
}
