//go:build linux && (amd64 || arm64)

package walker

import (
	"time"

	"golang.org/x/sys/unix"
)

// waitedOnDisk reports whether a listing through d that took took may
// have waited on the disk: d's filesystem is not local (an lstat there
// may take milliseconds), or the listing was slow and the process has
// read blocks from a disk since the capture began (its rusage, inblock0
// then). Slow alone is not enough: on a busy machine a warm listing
// waits for a CPU.
func waitedOnDisk(d *dirh, took time.Duration, n int, inblock0 int64) bool {
	if !d.raw {
		return true
	}
	return took > slowListing+time.Duration(n)*slowListing/100 && blockReads() > inblock0
}

// blockReads returns the blocks the process has read from disks.
func blockReads() int64 {
	var ru unix.Rusage
	if unix.Getrusage(unix.RUSAGE_SELF, &ru) != nil {
		return 1 << 62 // unknown: as if it had
	}
	return ru.Inblock
}
