//go:build unix

package restore

import (
	"errors"
	"io/fs"
	"syscall"
)

func ownerIDs(fi fs.FileInfo) (uid, gid int, ok bool) {
	if s, ok := fi.Sys().(*syscall.Stat_t); ok {
		return int(s.Uid), int(s.Gid), true
	}
	return -1, -1, false
}

// isInvalid: an id the file system or user namespace cannot represent.
func isInvalid(err error) bool { return errors.Is(err, syscall.EINVAL) }
