//go:build unix

package umask

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// TestRead: Read, and bySetting where /proc is missing, give the
// process umask and leave it as it was.
func TestRead(t *testing.T) {
	old := syscall.Umask(0o027)
	defer syscall.Umask(old)
	for _, read := range []struct {
		name string
		f    func() uint32
	}{{"Read", Read}, {"bySetting", bySetting}} {
		for _, m := range []int{0o027, 0o002, 0o077, 0} {
			syscall.Umask(m)
			if got := read.f(); got != uint32(m) {
				t.Errorf("umask %03o: %s %03o", m, read.name, got)
			}
			if now := syscall.Umask(m); now != m {
				t.Errorf("umask %03o: %03o after %s", m, now, read.name)
			}
		}
	}
}

func TestFromStatus(t *testing.T) {
	for _, c := range []struct {
		text string
		want uint32
		ok   bool
	}{
		{"Name:\tx\nUmask:\t0022\nState:\tR\n", 0o022, true},
		{"Umask:\t0002", 0o002, true},
		{"Umask:\t0777\n", 0o777, true},
		{"Name:\tx\nState:\tR\n", 0, false},
		{"Umask:\tzz\n", 0, false},
		{"", 0, false},
	} {
		if got, ok := fromStatus([]byte(c.text)); got != c.want || ok != c.ok {
			t.Errorf("fromStatus(%q) = %03o %v, want %03o %v", c.text, got, ok, c.want, c.ok)
		}
	}
}

func TestPulled(t *testing.T) {
	for u, want := range map[uint32]uint32{0: 0o022, 0o002: 0o022, 0o022: 0o022, 0o027: 0o027, 0o077: 0o077, 0o007: 0o027} {
		if got := Pulled(u); got != want {
			t.Errorf("Pulled(%03o) = %03o, want %03o", u, got, want)
		}
	}
}

// TestReadCheap: Read runs in every process at start (pathstate's
// ForeignUmask), so it must not allocate buffers for /proc's text.
func TestReadCheap(t *testing.T) {
	if b, err := os.ReadFile("/proc/self/status"); err != nil || !bytes.Contains(b, []byte("\nUmask:")) {
		t.Skip("no Umask line in /proc/self/status here")
	}
	if n := testing.AllocsPerRun(20, func() { Read() }); n > 2 {
		t.Errorf("Read: %v allocations, want at most 2", n)
	}
}

// FuzzFromStatus: fromStatus, which scans the bytes in place, reads
// what the line-splitting parser it replaced read from any text.
func FuzzFromStatus(f *testing.F) {
	f.Add([]byte("Name:\tx\nUmask:\t0022\nState:\tR\n"))
	f.Add([]byte("Umask:\t0777"))
	f.Add([]byte("Umask: 12\r\nUmask:\t0002\n"))
	f.Add([]byte("\n\nUmask:\t\t 0027 \n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		wantM, wantOK := uint32(0), false
		for _, line := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(line, "Umask:"); ok {
				if m, err := strconv.ParseUint(strings.TrimSpace(v), 8, 32); err == nil {
					wantM, wantOK = uint32(m)&0o777, true
					break
				}
			}
		}
		if m, ok := fromStatus(b); m != wantM || ok != wantOK {
			t.Errorf("fromStatus(%q) = %03o %v, want %03o %v", b, m, ok, wantM, wantOK)
		}
	})
}
