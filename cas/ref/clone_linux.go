package ref

import (
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// cloneInto clones src's content into dst with the FICLONE ioctl
// (btrfs, XFS with reflink=1, bcachefs, ...).
func cloneInto(dst, src *os.File) error {
	err := unix.IoctlFileClone(int(dst.Fd()), int(src.Fd()))
	switch {
	case err == nil:
		return nil
	case errors.Is(err, unix.EOPNOTSUPP), errors.Is(err, unix.ENOTTY), errors.Is(err, unix.EXDEV),
		errors.Is(err, unix.EINVAL), errors.Is(err, unix.ENOSYS):
		return fmt.Errorf("%w: %v", ErrNoClone, err)
	}
	return fmt.Errorf("ref: clone %s: %w", src.Name(), err)
}
