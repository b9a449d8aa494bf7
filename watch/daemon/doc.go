// Package daemon is the watch daemon's wire protocol, client and server
// loop. A watch daemon holds a store open, watches its work tree and runs
// the commands other processes hand it over a unix socket. The package
// knows nothing of what a command is: a Handler runs each request. It
// imports neither the root package nor the CLI. The reasons behind the
// protocol are in docs/design.md.
//
// # Terms
//
//   - Socket: watch.sock in the store directory, mode 0600, or a name in
//     a per-user 0700 directory when that path cannot serve (SocketPath).
//   - Frame: a kind byte, a big-endian uint32 length, then the bytes.
//   - Request: one JSON frame a client sends: "ping", "stop" or "run".
//   - Accept frame: sent before a "run" command starts. Without it the
//     command did not run (ErrNotRun). After it, a lost connection is a
//     *LostError.
//   - HTTP: a connection whose first byte is not 'q' goes to Config.HTTP.
//     Config.Listen serves it on loopback TCP too, with a bearer token.
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
//   - A request of another Version is refused, and the daemon gives its
//     store up.
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
