// Package engine holds the undo mechanisms the benchmark compares, each
// behind one interface, Engine. They are turnback's CLI with and without
// its watch daemon, with a daemon started by hand, and its Go API in
// process; a shadow git repository, as OpenCode, Gemini CLI and Cline
// keep one; and restic when it is installed. The measurement method is
// in docs/design.md.
//
// # Terms
//
//   - Op: one operation of one or more commands. Wall and CPU times add
//     up; peak RSS is the largest.
//   - Spawn helper: the bench binary re-executed with SpawnEnv. It runs
//     each command and reports its own time and rusage, so a child's
//     RSS is not the parent's.
//   - Phase: cold (into an empty store), nochange, before (untimed) or
//     turn. Undo goes back to the last turn's before-state.
//   - Engine names: as results.json spells them ("turnback-cli",
//     "shadow-git", ...).
//
// # Failure behaviour
//
// A command that fails or prints what the engine cannot read fails the
// operation. The harness records a failed sample; the engine stays
// usable. StopDaemons ends the daemons the engines started.
package engine
