// Package diag is what the turnback process tells about itself and how
// it runs.
//
//   - The version line.
//   - TuneGC: no garbage collection until the heap first reaches 64 MiB,
//     then the usual pacing under a 256 MiB soft cap.
//   - BoostIO: twice as many Ps as CPUs while the process reads from the
//     disk, so that reads blocked in the kernel do not idle the CPUs.
//   - A CPU profile of the whole command, with TURNBACK_CPUPROFILE.
//   - The peak resident memory at exit, with TURNBACK_TEST_PEAK_RSS.
//   - InstallFaults: faults injected at a restore step, for the tests.
//
// # Failure behaviour
//
// None of it fails the command. A profile that cannot start is reported
// on stderr. A peak the system does not tell is not printed.
package diag
