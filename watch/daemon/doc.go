// Package daemon is the watch daemon's server loop and client. A watch
// daemon holds a store open, watches its work tree and serves the HTTP
// requests other processes send it over a unix socket. The package
// knows nothing of what a request does: Config.HTTP serves them, but
// the daemon's own ping and stop (wire.go). It imports neither the
// root package nor the CLI. The reasons behind the
// protocol are in docs/design.md.
//
// # Terms
//
//   - Socket: watch.sock in the store directory, mode 0600, or a name in
//     a per-user 0700 directory when that path cannot serve (SocketPath).
//   - Ping: GET /v1/daemon, answered with Info. Stop: POST
//     /v1/daemon/stop, answered once the store is released.
//   - HTTP: every other request goes to Config.HTTP. Config.Listen
//     serves it on loopback TCP too, with a bearer token.
//   - Headers: the Turnback-* headers of the HTTP API and the counters
//     of its progress stream (api.go), shared by the root package's
//     client and the server, internal/daemon.
//   - Token: 32 random bytes in hex, in the store's api.token, mode 0600.
//   - Soft stop: a stop request, the idle timeout, the socket replaced.
//     Running commands finish.
//   - Hard stop: a signal, or the folder or store gone. Commands are
//     cancelled and get CmdGrace.
//   - Note: a daemon's entry in the registry, PID.daemon in the per-user
//     socket directory while it listens: pid, start time, folder, store
//     and socket, so that a listing finds it by asking that socket.
//
// # Invariants
//
//   - A client never uses a socket in a directory another user can write.
//   - No TCP without a token. A request without it gets 401 before the
//     handler runs.
//   - A request naming another Version (ProtocolHeader) is refused, and
//     the daemon gives its store up.
//   - A stopping daemon never waits for the store longer than closeWait.
//     It never closes a store whose directory is gone or replaced.
//   - A pid is signalled only if its start time matches, so a reused pid
//     is safe.
//   - RemoveStaleSocket runs only in a process that holds the store.
//
// # Errors
//
// Errors are prefixed "daemon:". CheckSocketDir's say only why a
// directory is refused, for the caller to wrap.
package daemon
