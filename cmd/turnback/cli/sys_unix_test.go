//go:build unix

package cli

import (
	"os"
	"syscall"
)

// setTestUmask fixes the permission bits of files the tests create.
func setTestUmask() { syscall.Umask(0o022) }

// childMaxRSS is the peak RSS (KiB on Linux) rusage reports for an
// exited child, 0 if it reports none.
func childMaxRSS(ps *os.ProcessState) int64 {
	if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
		return int64(ru.Maxrss)
	}
	return 0
}

func mkfifo(path string) error { return syscall.Mkfifo(path, 0o644) }
