//go:build unix

package turnback

import (
	"os"
	"strconv"
	"strings"
	"syscall"
)

// readUmask is the process umask. Linux shows it in /proc/self/status.
// Elsewhere it is read by setting it, briefly, to 077: a file made by
// another goroutine meanwhile gets fewer permissions, never more.
func readUmask() uint32 {
	if b, err := os.ReadFile("/proc/self/status"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(line, "Umask:"); ok {
				if m, err := strconv.ParseUint(strings.TrimSpace(v), 8, 32); err == nil {
					return uint32(m) & 0o777
				}
			}
		}
	}
	old := syscall.Umask(0o077)
	syscall.Umask(old)
	return uint32(old) & 0o777
}
