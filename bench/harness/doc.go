// Package harness runs the benchmark: it builds the turnback binary,
// prepares the trees (package trees), runs every scenario on each tree
// with the engines (package engine) alternating run by run, checks every
// undo against the tree's ground truth (package truth) and writes the
// results (package report) after every scenario.
//
// Algorithm. Per tree, each scenario runs --warmup unmeasured and --reps
// measured repetitions; within a repetition the engines run one after
// another, all on the same tree, each with its own store. Before each
// timed step the harness calls sync(2), untimed, so one engine's dirty
// pages are not flushed on another's clock, and before the turn's steps
// it waits --settle, so files written just before are not racily clean.
// The scenarios, in order: cold capture (a fresh store per repetition;
// without it, one untimed first capture), no-change capture, the turn
// cycle (before-state capture untimed, the turn applied, turn capture,
// undo, verification), the stores' disk use, and, when asked for
// (--scenarios b2b), the back-to-back scenario (b2b.go): a fresh store,
// then the cold, no-change and turn captures and the undo one right
// after the other, nothing waited for between them (no sync, no settle,
// no daemon status), each timed, the undo verified afterwards; only
// engines that implement engine.BackToBack (cli, cli-nowatch, git) run
// it.
//
// Failure behaviour. A failed operation is a failed sample, listed in
// the report; an engine whose last cold capture failed is left out of the
// later scenarios of that tree. A wrong undo is a failed sample too, and
// the harness puts the tree back (the turn's own bytes, then a repair
// from the tree's source) before going on. Errors of the harness itself
// (a tree it cannot prepare, verify or repair, a turn it cannot plan)
// end the tree or the run; whatever was measured is in the results
// written so far, marked partial.
package harness
