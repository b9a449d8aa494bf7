package ref

import (
	"fmt"
	"io/fs"
	"os"
)

// openRegular opens name for reading only if it is a regular file
// (symlinks followed). Every file cas/ref reads comes from a repository
// that may be hostile or damaged, and a FIFO, a terminal or another
// device in its place must not make a capture or a restore block
// forever in open(2) or read(2) (a process blocked in open does not even
// see SIGTERM): the name is checked with stat before it is opened, opened
// without blocking (openNoBlock), and checked again on the open file, so
// a swap between the two is caught too. A name that is not a regular
// file gives an error wrapping fs.ErrInvalid.
func openRegular(name string) (*os.File, error) {
	if fi, err := os.Stat(name); err != nil {
		return nil, err
	} else if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("ref: %s: not a regular file (%v): %w", name, fi.Mode().Type(), fs.ErrInvalid)
	}
	f, err := openNoBlock(name)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("ref: %s: not a regular file (%v): %w", name, fi.Mode().Type(), fs.ErrInvalid)
	}
	return f, nil
}
