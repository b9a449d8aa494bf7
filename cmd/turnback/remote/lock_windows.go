//go:build windows

package remote

import (
	"os"

	"golang.org/x/sys/windows"
)

// lockFile takes f exclusively, waiting for its holder; closing f
// releases it (also when the process dies).
func lockFile(f *os.File) error {
	return windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK, 0, 1, 0, new(windows.Overlapped))
}
