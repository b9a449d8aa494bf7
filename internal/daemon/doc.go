// Package daemon is turnback's daemon: the HTTP/JSON API it serves over
// a turnback.Repo (NewHandler), and what the turnback command does with
// daemons (Run). It runs a daemon in this process (watch, serve), starts
// one in the background and waits until it is ready, stops the one of a
// store, and finds, lists and stops every daemon of this user. Package
// watch/daemon is its socket, transport and registry, and what a client
// needs to reach it. The reasons are in
// docs/design.md.
//
// It imports the root package and serves its API as the CLI uses it;
// the root package never imports it. The root's client (a Repo a daemon
// serves) and this server speak one protocol: the documents are
// internal/api's, the headers and the progress stream's counters
// are watch/daemon's (api.go), and openapi.json describes the routes.
// Nothing outside the module imports it: the HTTP API is the daemon's
// public face.
//
// # Terms
//
//   - Route: a method and a path pattern (apiRoutes); openapi.json
//     documents each (TestOpenAPIRoutes).
//   - View: each request runs on a view of the served Repo for the
//     session it names (turnback.Repo.View).
//   - Stream: a request that accepts application/x-ndjson gets its
//     progress and restore steps as lines before its outcome.
//   - Error document: internal/api's ErrorResponse, with the exit code the
//     CLI exits with for the same error.
//   - Server: the serving side (NewServer, server.go): the socket, HTTP
//     on it and on loopback TCP (ServerConfig.Listen, with the bearer
//     token), the daemon's own ping and stop, its note in the registry.
//   - Soft stop: a stop request, the idle timeout, the socket replaced.
//     Running commands finish.
//   - Hard stop: a signal, or the folder or store gone. Commands are
//     cancelled and get CmdGrace.
//   - Daemon process: a serving "turnback watch" or "turnback serve",
//     found through its note in the registry (package watch/daemon) or its
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
//   - No TCP without a token. A request without it gets 401 before the
//     handler runs.
//   - A stopping daemon never waits for the store longer than closeWait.
//     It never closes a store whose directory is gone or replaced.
//   - A request for another store or folder runs nothing (421).
//   - A request body is one JSON document of known fields, no key
//     twice, at most MaxRequestBody bytes.
//   - Operations of package daemonop are served on the unix socket only.
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
//
// # Auto-start (autostart.go, autostart_early.go)
//
// The package also starts a watch daemon by itself for a folder that
// needs one, and the daemon of "turnback watch --detach". The reasons
// behind the rules are in docs/design.md.
//
//   - Auto-start: a command that captured at least TURNBACK_AUTO_WATCH
//     files without a daemon ends by starting one in the background.
//     Default DefaultFiles; 0 or "off" means never. An agent hook whose
//     capture timed out starts one too.
//   - Early start: a capture still running when it has seen that many
//     files starts the daemon at once. The daemon watches while the
//     capture goes on, then takes the store when the command exits.
//   - EarlyEnv, BuiltEnv: the variables through which the command and the
//     early daemon find each other.
//   - Handoff: the command's capture, left for the early daemon as its
//     base, so the daemon needs no first capture.
//   - Local: what a command that ran in this process learnt of the
//     folder: work tree, store, counts, and whether a capture timed out.
//   - FailedName: the file a daemon that could not watch leaves in the
//     store. No daemon starts by itself for Retry after it.
//
// # Auto-start rules
//
// No daemon starts by itself outside Linux, for / or the home directory,
// on network or FUSE filesystems, or when the folder would leave the user
// fewer than watchReserve inotify watches.
//
// # Auto-start invariants
//
//   - Starting never changes the command's output or exit code, and the
//     command never waits for the daemon.
//   - A command never starts a second daemon. It stops its early one if
//     the final counts no longer call for one.
//   - Start fails only when the process could not start. A daemon that
//     cannot watch says why in watch.log.
package daemon
