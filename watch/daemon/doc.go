// Package daemon is the watch daemon's wire protocol, its client and its
// server loop. A watch daemon is a process that holds a store open,
// watches its work tree (package watch) and runs, on the store, the
// commands other processes hand it over a unix socket, so that each of
// them costs only what changed instead of a walk of the whole tree. The
// package knows nothing of what a command is: the server passes each
// request to a Handler, and the client copies what comes back. It
// imports neither the root package nor the command line, so that both
// (and the Go API, later) can talk to a daemon through it.
//
// # Socket
//
// The daemon listens on watch.sock in the store directory (mode 0600);
// when that path is too long for a socket address or the store
// directory is open to other users, on a name derived from the store in
// a per-user directory (0700) under the temporary directory
// (SocketPath). A client never talks to a socket in a directory another
// user could write to: it would send that user its command line and
// part of its environment. The socket is bound under a temporary name
// and renamed into place once it listens. A daemon killed outright
// leaves its socket behind; RemoveStaleSocket, called by a process that
// holds the store (so knows no daemon does), removes it.
//
// # Frames
//
// Every frame is a kind byte, a big-endian uint32 length and that many
// bytes. A client sends one request frame (a JSON Request; at most
// MaxRequest bytes, within 10 seconds of connecting). For "ping" the
// daemon answers an info frame (a JSON Info). For "stop" it answers,
// once it has stopped and released the store, an exit frame: "0", or "1"
// when it could not close the store. For "run" it answers an accept
// frame before it runs anything, then stdout and stderr frames as the
// command writes them, and an exit frame with the exit code in decimal.
// A connection that ends before the accept ran nothing (Run returns
// ErrNotRun: the caller runs the command itself); one that ends after it
// ran something that did not finish (a *LostError). A client that goes
// away cancels the command it asked for. Requests of another Version
// are not accepted, and make the daemon give its store up.
//
// # HTTP
//
// A server given a Config.HTTP handler serves it on the same socket: a
// connection whose first byte is not a request frame's ('q') is handed
// to an http.Server (an HTTP request begins with a method name), so one
// address serves both protocols. With Config.Listen (a loopback IP
// address and port; CheckLoopback refuses others) it serves the handler
// on TCP too, and every TCP request must carry "Authorization: Bearer"
// and the token of the store's api.token file (LoadToken makes it,
// 32 random bytes in hex, mode 0600): 401 otherwise, before the handler
// runs; no token, no TCP. Each HTTP request but /v1/health and
// /v1/openapi.json counts as a command: the daemon is not idle while it
// runs and a stop waits for it; once the daemon stops, requests are
// answered 503 (kind "stopping": nothing ran). A hard stop cancels the
// requests' contexts.
//
// # Stopping
//
// A daemon stops for a soft reason (a stop request, its idle timeout, a
// client of another protocol, its socket removed or replaced) or a hard
// one (the context given to Serve ends: a signal; its folder removed or
// replaced for longer than treeGoneFor; its store directory, its db
// directory or Badger's MANIFEST removed, moved or replaced). It looks
// for them every checkEvery. On a soft stop it accepts no more clients
// and lets the commands it runs finish; on a hard one it also cancels
// them (Stopping tells a Handler why) and gives them CmdGrace. A client
// that stops reading its output gets stopGrace more, then writes to it
// fail. Closing the store is never waited for longer than closeWait (a
// command stuck in the store holds its lock), and a store whose
// directory is gone, moved or replaced is not closed at all: it cannot
// be flushed (Badger retries the flush of its memtable forever, and its
// Close waits for that; a replacement directory would receive its
// tables). Serve then returns an error saying why; what the store had
// not flushed is in its write-ahead files, replayed by the next open as
// after a crash, and the lock goes with the process.
//
// Errors are prefixed "daemon:"; CheckSocketDir's only say why a
// directory is refused, for the caller to wrap.
//
// # Processes
//
// ListProcs finds daemon processes without a registry that could go
// stale: on Linux, the turnback processes of this user in /proc whose
// arguments the caller recognises as a daemon's, with their directory,
// environment, the store whose database files they hold open (and
// whether those were deleted), start time and memory. ProcAlive and
// SignalProc name a process by its pid and start time, so that a pid
// reused by a later process is not signalled. Elsewhere ListProcs finds
// nothing and a listing relies on the sockets.
package daemon
