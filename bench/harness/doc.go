// Package harness runs the benchmark. It builds turnback, prepares the
// trees, runs every scenario with the engines alternating run by run,
// checks every undo against the tree's ground truth, and writes the
// results after every scenario. The method is in docs/design.md and
// docs/performance.md.
//
// # Terms
//
//   - Scenario: cold capture, no-change capture, the turn cycle (turn
//     capture, undo, verification), disk use, and, when asked for,
//     back-to-back (b2b.go).
//   - Repetition: each engine runs once, on the same tree, with its own
//     store. --warmup runs are not measured.
//   - Settle: the wait before a turn's steps, so files just written are
//     not racily clean. sync(2) runs, untimed, before each timed step.
//   - Back-to-back: cold, no-change and turn captures and the undo with
//     no wait between them, as a script would run them.
//
// # Failure behaviour
//
// A failed operation, or a wrong undo, is a failed sample. The harness
// then puts the tree back before going on. An engine whose cold capture
// failed skips that tree's later scenarios. An error of the harness
// itself ends the tree or the run; the results written so far are
// marked partial.
package harness
