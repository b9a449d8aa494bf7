// Package daemons is what the turnback command does with watch daemons.
// Package daemon is the daemon itself. This one runs a daemon in this
// process (watch, serve), starts one in the background and waits until
// it is ready, stops the one of a store, and finds, lists and stops every
// daemon of this user. The reasons are in docs/design.md.
//
// # Terms
//
//   - Daemon process: a serving "turnback watch" or "turnback serve",
//     found through its note in the registry (package daemon) or its
//     socket, and asked over its socket who it is.
//   - Problems: "store gone", "folder gone" and "not answering".
//   - Start-up: the daemon listens first, then builds its watches.
//     Commands that come meanwhile run at once, as full walks.
//   - Early daemon: one a capturing command started. It builds its
//     watcher without the store, then takes the store when the command
//     ends, with the command's capture as its base.
//   - Stop: ask over the socket, then SIGTERM, each with stopGrace.
//   - Orphan: a store whose folder is gone. OfOrphans stops its daemon.
//
// # Invariants
//
//   - A listing reads no process table: it asks the sockets the notes
//     name (and those of stores in the default location).
//   - A command never waits for a daemon's start-up.
//   - A process is named by pid and start time, so a reused pid is never
//     signalled; where the start time is not known (no /proc), a daemon
//     that does not answer is not listed and never signalled.
//   - A daemon that cannot be asked is treated as not running.
//
// # Errors
//
// Run returns ErrRunning when a daemon already serves the store. Detach
// returns the daemon's last words from watch.log when it exits early.
package daemons
