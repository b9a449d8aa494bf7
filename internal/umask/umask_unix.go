//go:build unix

package umask

import (
	"bytes"
	"strconv"
	"syscall"
)

// Pulled is the mask restores of another machine's states use, for
// process umask u: no group or other write, and no bit u clears.
func Pulled(u uint32) uint32 { return u | 0o022 }

// Read is the process umask. Linux shows it in /proc/self/status;
// elsewhere bySetting reads it.
func Read() uint32 {
	if m, ok := fromProc(); ok {
		return m
	}
	return bySetting()
}

// fromProc reads the umask from /proc/self/status. Every process reads
// it at start, so this takes plain system calls and next to no heap.
// The Umask line is the second, well inside the first 4 KiB.
func fromProc() (uint32, bool) {
	fd, err := syscall.Open("/proc/self/status", syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return 0, false
	}
	defer syscall.Close(fd)
	var buf [4096]byte
	n := 0
	for n < len(buf) {
		k, err := syscall.Read(fd, buf[n:])
		if err == syscall.EINTR {
			continue
		}
		if err != nil || k <= 0 {
			break
		}
		n += k
	}
	return fromStatus(buf[:n])
}

// fromStatus is the umask in the text of /proc/self/status, if it has
// one (Linux 4.7 and later).
func fromStatus(b []byte) (uint32, bool) {
	for len(b) > 0 {
		var line []byte
		line, b, _ = bytes.Cut(b, []byte("\n"))
		if v, ok := bytes.CutPrefix(line, []byte("Umask:")); ok {
			if m, err := strconv.ParseUint(string(bytes.TrimSpace(v)), 8, 32); err == nil {
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
