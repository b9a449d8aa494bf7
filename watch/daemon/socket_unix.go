//go:build unix

package daemon

import (
	"fmt"
	"os"
	"syscall"
)

// CheckSocketDir refuses a directory for the daemon's socket unless this
// user owns it and nobody else may write to it.
func CheckSocketDir(dir string) error {
	fi, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	switch {
	case !fi.IsDir():
		return fmt.Errorf("%s is not a directory", dir)
	case !ok || int(st.Uid) != os.Getuid():
		return fmt.Errorf("%s is not owned by this user", dir)
	case fi.Mode().Perm()&0o022 != 0:
		return fmt.Errorf("%s is writable by others (mode %v)", dir, fi.Mode().Perm())
	}
	return nil
}

// PrivateUmask makes files created until the returned function runs
// private to their owner (the process is otherwise single-threaded in
// what it creates then: the daemon before it serves).
func PrivateUmask() func() {
	old := syscall.Umask(0o077)
	return func() { syscall.Umask(old) }
}
