//go:build unix

package remote

import (
	"os"
	"syscall"
)

// lockFile takes f exclusively, waiting for its holder; closing f
// releases it (also when the process dies).
func lockFile(f *os.File) error {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if err != syscall.EINTR {
			return err
		}
	}
}
