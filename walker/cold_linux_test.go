//go:build linux && (amd64 || arm64)

package walker

import (
	"testing"
	"time"
)

// TestNoteListing: a listing marks the capture cold on a filesystem
// that is not local, or when it took over a millisecond and 10 µs an
// entry while the process read blocks from a disk.
func TestNoteListing(t *testing.T) {
	now := blockReads()
	for _, tc := range []struct {
		local    bool
		took     time.Duration
		n        int
		inblock0 int64
		cold     bool
	}{
		{false, time.Microsecond, 1, now, true},
		{true, 500 * time.Microsecond, 0, -1, false},
		{true, 1100 * time.Microsecond, 0, -1, true},
		{true, 1900 * time.Microsecond, 100, -1, false},
		{true, 2100 * time.Microsecond, 100, -1, true},
		{true, time.Second, 100, 1 << 62, false}, // slow, no disk read: a busy machine
	} {
		c := &capture{inblock0: tc.inblock0}
		c.noteListing(&dirh{raw: tc.local}, tc.took, tc.n)
		if c.cold.Load() != tc.cold {
			t.Errorf("%+v: cold %v", tc, c.cold.Load())
		}
	}
}
