// Package envopt reads what a command works on, and how, from its
// environment. Locate finds the work tree and store from -C, --store,
// TURNBACK_STORE and the current directory. The TURNBACK_* variables fill
// turnback.Options.
//
// # Terms
//
//   - Size: "10M", in powers of 1024.
//   - Duration: Go's syntax, plus a "d" suffix for days.
//   - TURNBACK_SIZE_LIMIT: files larger are not captured. "0": no limit.
//   - TURNBACK_LARGE_DIR_FILES: a new directory with this many files or
//     more is not captured. "0": no such rule.
//   - TURNBACK_KEEP_TURNS, TURNBACK_KEEP_AGE: retention per session.
//   - TURNBACK_LOCK_WAIT: how long to wait for a busy store. "0": fail
//     at once.
//   - TURNBACK_TEST_NOW: the tests' clock, an RFC 3339 time. Not part of
//     the contract.
//
// # Failure behaviour
//
// A value that does not parse is an error naming the variable and the
// value. The command reports it as a usage error. Options keep their
// old value for that variable.
package envopt
