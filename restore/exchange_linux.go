//go:build linux

package restore

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// exchange swaps srcName in src and dstName in dst atomically with
// renameat2(RENAME_EXCHANGE): both must exist. It returns
// errNoExchange where the kernel or filesystem cannot do it.
func exchange(src *os.Root, srcName string, dst *os.Root, dstName string) error {
	return renameat2(src, srcName, dst, dstName, unix.RENAME_EXCHANGE)
}

// renameNoReplace renames srcName to dstName unless dstName exists
// (then an error wrapping fs.ErrExist). It returns errNoExchange where
// renameat2(RENAME_NOREPLACE) is not available.
func renameNoReplace(src *os.Root, srcName string, dst *os.Root, dstName string) error {
	return renameat2(src, srcName, dst, dstName, unix.RENAME_NOREPLACE)
}

// noRenameat2 makes renameat2 unavailable (tests of the fallback).
var noRenameat2 bool

func renameat2(src *os.Root, srcName string, dst *os.Root, dstName string, flags uint) error {
	if noRenameat2 {
		return errNoExchange
	}
	sf, err := src.Open(".")
	if err != nil {
		return err
	}
	defer sf.Close()
	df := sf
	if dst != src {
		if df, err = dst.Open("."); err != nil {
			return err
		}
		defer df.Close()
	}
	err = unix.Renameat2(int(sf.Fd()), srcName, int(df.Fd()), dstName, flags)
	if errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EINVAL) || errors.Is(err, unix.EOPNOTSUPP) {
		return errNoExchange
	}
	if err != nil {
		return &os.LinkError{Op: "renameat2", Old: srcName, New: dstName, Err: err}
	}
	return nil
}
