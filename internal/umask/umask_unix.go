//go:build unix

package umask

import (
	"os"
	"strconv"
	"strings"
	"syscall"
)

// Pulled is the mask restores of another machine's states use, for
// process umask u: no group or other write, and no bit u clears.
func Pulled(u uint32) uint32 { return u | 0o022 }

// Read is the process umask. Linux shows it in /proc/self/status;
// elsewhere bySetting reads it.
func Read() uint32 {
	if b, err := os.ReadFile("/proc/self/status"); err == nil {
		if m, ok := fromStatus(b); ok {
			return m
		}
	}
	return bySetting()
}

// fromStatus is the umask in the text of /proc/self/status, if it has
// one (Linux 4.7 and later).
func fromStatus(b []byte) (uint32, bool) {
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "Umask:"); ok {
			if m, err := strconv.ParseUint(strings.TrimSpace(v), 8, 32); err == nil {
				return uint32(m) & 0o777, true
			}
		}
	}
	return 0, false
}

// bySetting reads the umask by setting it, briefly, to 077: a file made
// by another goroutine meanwhile gets fewer permissions, never more.
func bySetting() uint32 {
	old := syscall.Umask(0o077)
	syscall.Umask(old)
	return uint32(old) & 0o777
}
