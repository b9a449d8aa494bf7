package cas

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// preallocate allocates n bytes of f from off without changing its size.
// A filesystem that cannot, or whose blocks so allocated may still need
// space when written (copy on write: btrfs, zfs), gives errNoPrealloc.
func preallocate(f *os.File, off, n int64) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var ferr error
	if err := rc.Control(func(fd uintptr) {
		var st unix.Statfs_t
		if ferr = unix.Fstatfs(int(fd), &st); ferr != nil {
			return
		}
		switch uint32(st.Type) {
		case unix.EXT4_SUPER_MAGIC, unix.XFS_SUPER_MAGIC, unix.TMPFS_MAGIC:
		default:
			ferr = errNoPrealloc
			return
		}
		for {
			ferr = unix.Fallocate(int(fd), unix.FALLOC_FL_KEEP_SIZE, off, n)
			if ferr != unix.EINTR {
				return
			}
		}
	}); err != nil {
		return err
	}
	if errors.Is(ferr, unix.EOPNOTSUPP) || errors.Is(ferr, unix.ENOSYS) {
		return errNoPrealloc
	}
	return ferr
}
