//go:build darwin

package walker

import "syscall"

// ctimeOf is the inode change time of s, in nanoseconds.
func ctimeOf(s *syscall.Stat_t) int64 { return s.Ctimespec.Nano() }

const noAtime = 0

// recordFIFOs: fifos are skipped here, as restores can remake them on
// Linux only (package restore).
const recordFIFOs = false
