package cas

import (
	"errors"
	"io"
	"os"
	"sync/atomic"
)

// The fault seam: every create, write and sync of a pack file (and of
// its directory) goes through the functions below, and every database
// write (Badger's Set, Delete and Update) begins with a call, all of
// which consult the fault hook that tests install with SetFaults.
// Badger's own files cannot be reached this way (it writes them through
// mmap); the reserve of space.go keeps them from failing for want of
// space.

// ErrInjectedShortWrite, returned by a fault hook for a "write", makes
// the write store half its bytes and then fail with io.ErrShortWrite.
var ErrInjectedShortWrite = errors.New("cas: injected short write")

var faults atomic.Pointer[func(op, path string) error]

// SetFaults installs fn as the fault hook and returns a function that
// removes it. Before each operation on a pack file, fn is
// called with the operation ("create", "write", "sync", "syncdir") and
// the path; before each database write, with "dbset", "dbdelete" or
// "dbupdate" and the database's directory. An error it returns is the
// operation's result (nothing is done, except for ErrInjectedShortWrite).
// It exists for fault-injection tests; fn must be safe for concurrent
// use.
func SetFaults(fn func(op, path string) error) (remove func()) {
	faults.Store(&fn)
	return func() { faults.Store(nil) }
}

func fault(op, path string) error {
	if fn := faults.Load(); fn != nil {
		return (*fn)(op, path)
	}
	return nil
}

// createPack opens a pack file for appending (with O_CREATE|O_EXCL when
// create is set).
func createPack(path string, create bool) (*os.File, error) {
	flag := os.O_WRONLY | os.O_APPEND
	if create {
		flag |= os.O_CREATE | os.O_EXCL
		if err := fault("create", path); err != nil {
			return nil, &os.PathError{Op: "open", Path: path, Err: err}
		}
	}
	return os.OpenFile(path, flag, 0o600)
}

// writeFile writes b to f.
func writeFile(f *os.File, b []byte) (int, error) {
	if err := fault("write", f.Name()); err != nil {
		if errors.Is(err, ErrInjectedShortWrite) {
			n, werr := f.Write(b[:len(b)/2])
			if werr != nil {
				return n, werr
			}
			return n, io.ErrShortWrite
		}
		return 0, &os.PathError{Op: "write", Path: f.Name(), Err: err}
	}
	return f.Write(b)
}

// syncFile makes f durable.
func syncFile(f *os.File) error {
	if err := fault("sync", f.Name()); err != nil {
		return &os.PathError{Op: "sync", Path: f.Name(), Err: err}
	}
	return f.Sync()
}
