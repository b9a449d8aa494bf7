// Package diag is what the turnback process tells about itself and how
// it runs: its version line, its memory settings (TuneGC: no garbage
// collection until the heap first reaches 64 MiB, then the usual pacing
// under a 256 MiB soft cap), a CPU profile of the whole command
// (TURNBACK_CPUPROFILE, for "go tool pprof"), its peak resident memory
// at exit (TURNBACK_TEST_PEAK_RSS, read by tests that bound memory use); and,
// for the tests of interrupted restores, faults injected at a given
// restore step (InstallFaults).
//
// # Failure behaviour
//
// None of it may fail the command: a profile that cannot be started is
// reported on stderr and the command runs without it; a peak that the
// system does not tell (outside Linux) is not printed.
package diag
