// Package engine holds the undo mechanisms the benchmark compares, each
// behind one interface (Engine): turnback through its CLI as users get it
// (with the watch daemon it starts by itself), without that daemon, with
// a daemon started explicitly, and through its Go API in process; a
// shadow git repository as OpenCode, Gemini CLI and Cline keep one; and
// restic when it is installed.
//
// Algorithm. Every external command runs under a small helper process
// (the bench binary re-executed with SpawnEnv set, see SpawnHelper) that
// starts it, waits with wait4 and reports the command's own wall time and
// rusage: Go starts children with CLONE_VM|CLONE_VFORK, and Linux charges
// the memory a child shared with its parent to the child's ru_maxrss at
// exec, so without the helper a /bin/true started by a 300 MB process
// reports 300 MB. An operation (Op) is one or more commands: their wall
// times and CPU times add up, its peak RSS is the largest, and the share
// of the machine's CPU other processes used meanwhile is read from
// /proc/stat. A watch daemon's CPU time during a step is read from
// /proc/<pid>/stat and added; its peak RSS is its VmHWM.
//
// Terms. A capture's phase is cold (into an empty store), nochange,
// before (the turn's before-state, untimed) or turn (its after-state);
// Undo goes back to the before-state of the last turn. Engine names
// ("turnback-cli", "shadow-git", ...) are the ones results.json uses.
//
// Failure behaviour. A command that fails, exits non-zero or prints
// output the engine cannot read is an error of the operation, which the
// harness records as a failed sample; the engine stays usable. Daemons
// the engines start are registered, and StopDaemons ends any still
// running when a run ends early.
package engine
