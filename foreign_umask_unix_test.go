//go:build unix

package turnback

import (
	"syscall"
	"testing"
)

// TestReadUmask: readUmask gives the process umask and leaves it as it
// was.
func TestReadUmask(t *testing.T) {
	old := syscall.Umask(0o027)
	defer syscall.Umask(old)
	for _, m := range []int{0o027, 0o002, 0o077, 0} {
		syscall.Umask(m)
		if got := readUmask(); got != uint32(m) {
			t.Errorf("umask %03o: readUmask %03o", m, got)
		}
		if now := syscall.Umask(m); now != m {
			t.Errorf("umask %03o: %03o after readUmask", m, now)
		}
	}
}
