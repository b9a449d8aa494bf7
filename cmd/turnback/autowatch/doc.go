// Package autowatch starts a watch daemon by itself for a folder that
// needs one. It also starts the daemon of "turnback watch --detach". The
// reasons behind the rules are in docs/design.md.
//
// # Terms
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
// # Rules
//
// No daemon starts by itself outside Linux, for / or the home directory,
// on network or FUSE filesystems, or when the folder would leave the user
// fewer than watchReserve inotify watches.
//
// # Invariants
//
//   - Starting never changes the command's output or exit code, and the
//     command never waits for the daemon.
//   - A command never starts a second daemon. It stops its early one if
//     the final counts no longer call for one.
//   - Start fails only when the process could not start. A daemon that
//     cannot watch says why in watch.log.
package autowatch
