//go:build unix

package restore

import (
	"os"

	"golang.org/x/sys/unix"
)

// renameBetween renames srcName in directory src to dstName in directory
// dst with renameat(2) on the two directory handles, so no path is
// resolved again (a directory swapped for a symlink cannot redirect it).
func renameBetween(src *os.Root, srcName string, dst *os.Root, dstName string, _ func() error) error {
	sf, err := src.Open(".")
	if err != nil {
		return err
	}
	defer sf.Close()
	df, err := dst.Open(".")
	if err != nil {
		return err
	}
	defer df.Close()
	if err := unix.Renameat(int(sf.Fd()), srcName, int(df.Fd()), dstName); err != nil {
		return &os.LinkError{Op: "renameat", Old: srcName, New: dstName, Err: err}
	}
	return nil
}
