//go:build linux

package walker

import "syscall"

// ctimeOf is the inode change time of s, in nanoseconds.
func ctimeOf(s *syscall.Stat_t) int64 { return s.Ctim.Nano() }

// noAtime asks the kernel not to update the access time of files that
// capture reads (capture must leave the work tree exactly as it was).
const noAtime = syscall.O_NOATIME

// recordFIFOs: fifos are recorded (restores remake them with mkfifoat).
const recordFIFOs = true
