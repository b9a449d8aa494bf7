// Package daemons is what the turnback command does with watch daemons
// (package daemon is the daemon itself): run one in this process (watch,
// and serve, which adds loopback TCP with the bearer token PrintToken
// prints; every daemon serves the HTTP API of turnback.NewHandler on
// its socket), start
// one in the background and wait until it is ready, stop the one of a
// store, and find, list and stop every daemon of this user.
//
// # Finding daemons
//
// There is no registry that could go stale: the processes themselves
// are the truth. On Linux, /proc shows every turnback process of this
// user whose command line is a serving "turnback watch" or "turnback serve" (not a client
// such as watch --stop or --list: parseArgs reads it with the command's
// own flags), with its directory, environment, the store whose database
// files it holds open, its start time and its memory; each is asked
// over its socket who it is. The sockets of the per-user directory
// (where a daemon listens when its store's path is too long or open to
// others), and without /proc those of the stores in the default
// location, find the daemons /proc did not show. A listed daemon's
// problems are "store gone" (its database files were deleted or moved),
// "folder gone" and "not answering".
//
// # Start-up
//
// Run opens the store, listens, and only then starts watching
// (turnback.Repo.Watch), which holds the store's turn for none of the
// watcher's build: commands forwarded meanwhile run at once, as full
// walks in the daemon, so none waits for the start-up. A command that
// found no socket and waits for the store the daemon took goes to the
// daemon as soon as it listens (turnback.Options.StopWaiting, set by
// the CLI). Once the daemon is ready, watch.log says where its start-up
// went: open, watcher build, first capture (none when a command's full
// capture after the build serves as the base), count.
//
// A daemon started early by a command that still captures the folder
// (RunOptions.EarlyPID, autowatch's Early) builds its watcher first,
// without the store (turnback.StartWatcher), then opens the store,
// waiting as long as that command's process runs and
// turnback.DefaultLockWait more (buildEarly), unless another daemon
// answers for the store meanwhile. Once built it says so through the
// pipe the command gave it (tellBuilt; the descriptor is checked to be
// that pipe, by inode, before anything is written or closed). Repo.Watch
// then takes the built watcher, and the command's capture it handed
// over (turnback.Handoff), or else its own first capture (or a
// command's made before it), is the base.
//
// # Stopping
//
// Stop asks a daemon over its socket and waits (stopGrace) for the
// process to go; one that does not answer, or does not go, gets
// SIGTERM (and SIGCONT, should it be stopped), then stopGrace again. A
// process is named by its pid and start time, so a pid reused since is
// never signalled. StopAll reports each daemon stopped, and how, and
// the survivors; OfOrphans stops the daemons of the stores gc --stores
// removes, so that they can go.
//
// # Failure behaviour
//
// Run returns ErrRunning (wrapped) when a daemon already serves the
// store, unless started by a command (Auto), which then exits quietly;
// otherwise the error of opening the store, of listening, of watching,
// or of closing the store (see package daemon). Detach returns the
// daemon's own last words from watch.log when it exits before it is
// ready. A daemon that cannot be asked (no socket, another user's
// directory) is treated as not running.
package daemons
