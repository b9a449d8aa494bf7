// Package daemon is the watch daemon's transport and client side: where
// its socket is, how to reach, ping and stop it, its bearer token, the
// registry of running daemons, and the headers of its HTTP API. A watch
// daemon holds a store open, watches its work tree and serves the HTTP
// requests other processes send it over a unix socket; its server is
// package internal/daemon. This package knows nothing of what a request
// does, and imports neither the root package nor the CLI: the root's
// client uses it to reach a daemon. The reasons behind the protocol are
// in docs/design.md.
//
// # Terms
//
//   - Socket: watch.sock in the store directory, mode 0600, or a name in
//     a per-user 0700 directory when that path cannot serve (SocketPath).
//   - Ping: GET /v1/daemon, answered with Info. Stop: POST
//     /v1/daemon/stop, answered once the store is released.
//   - HTTP: every other request goes to the server's handler, on the
//     socket and, with a bearer token, on loopback TCP.
//   - Conn: a client's connection to the daemon of a store (conn.go):
//     one request per connection, with the protocol's headers.
//   - Headers: the Turnback-* headers of the HTTP API and the counters
//     of its progress stream (api.go), shared by the root package's
//     client and the server, internal/daemon.
//   - Token: 32 random bytes in hex, in the store's api.token, mode 0600.
//   - Note: a daemon's entry in the registry, PID.daemon in the per-user
//     socket directory while it listens: pid, start time, folder, store
//     and socket, so that a listing finds it by asking that socket.
//
// # Invariants
//
//   - A client never uses a socket in a directory another user can write.
//   - A client names its Version (ProtocolHeader); a daemon of another
//     refuses the request and gives its store up.
//   - A pid is signalled only if its start time matches, so a reused pid
//     is safe.
//   - RemoveStaleSocket runs only in a process that holds the store.
//
// # Errors
//
// Errors are prefixed "daemon:". CheckSocketDir's say only why a
// directory is refused, for the caller to wrap.
package daemon
