// Package envopt reads what a command works on and how from its
// environment: the work tree and store (Locate, from -C, --store,
// TURNBACK_STORE and the directory it started in), turnback's options
// from its environment variables into turnback.Options, and the value
// syntaxes they share with flags: sizes ("10M", powers of 1024) and
// durations with a "d" (days) suffix besides Go's.
//
// # Variables
//
//   - TURNBACK_SIZE_LIMIT: files larger are not captured ("0": no limit).
//   - TURNBACK_LARGE_DIR_FILES: a new directory with this many files or
//     more is not captured ("0": no such rule).
//   - TURNBACK_KEEP_TURNS, TURNBACK_KEEP_AGE: automatic retention per
//     session.
//   - TURNBACK_LOCK_WAIT: how long to wait for a store another process
//     holds ("0": fail at once).
//   - TURNBACK_TEST_NOW: the tests' clock (an RFC 3339 time): turns are
//     stamped with it and "now" is it; not part of the contract.
//
// # Failure behaviour
//
// A value that does not parse is an error naming the variable and the
// value (the command reports it as a usage error); Options are then
// left as they were for that variable.
package envopt
