// Package autowatch starts a watch daemon by itself for a folder that
// needs one, and starts daemons in the background for "turnback watch
// --detach".
//
// # Rules
//
// A command that captured the folder without a daemon (snap, end,
// status and the agent hooks) walked the whole tree: the next one will
// again. When the folder holds at least TURNBACK_AUTO_WATCH files
// (default DefaultFiles; 0 or "off" means never), or an agent hook's
// capture ran out of its time budget (the folder is large), the command
// ends by starting a watch daemon in the background (as "turnback watch
// --detach --idle-timeout 30m" would, without waiting for it), so that
// the following commands are forwarded to it and cost only what
// changed. The command's own output and exit code are unchanged and it
// does not wait: the daemon's start-up (its watches, then one full
// capture, cheap as the stat cache is warm) runs while the agent works,
// and a command that comes meanwhile is never held up by it (see
// package daemons, "Start-up").
//
// Early: a capture that is still running when it has seen that many
// files (Local.Early polls its progress) starts the daemon at once,
// with EarlyEnv set to the command's pid. That daemon watches every
// directory while the capture goes on, then waits for the store the
// command holds, so it is ready one capture after the command ends
// instead of after a build and a capture (on a million files, the build
// alone takes seconds). At the end of the command Start applies the
// rules again with the capture's final counts (the directories, for
// the watch headroom, are known only then) and stops that daemon
// (SIGTERM) if they no longer call for one; it never starts a second.
// Early also arms the command's Repo for a handoff (turnback.Handoff):
// the daemon writes a byte into a pipe it was given (BuiltEnv: its
// descriptor and inode) once it watches every directory, and the
// command's capture, which noted the directories it listed before that
// and reads them again at its end, is left for the daemon as its base:
// the daemon then needs no first capture at all.
//
// None starts:
//
//   - outside Linux (elsewhere a watcher may need a descriptor per file);
//   - for "/" or the home directory (folders turnback captures only with
//     --force);
//   - on network or FUSE filesystems (NFS, SMB, sshfs, 9p, ...): inotify
//     does not report changes made from elsewhere, and a daemon would
//     trust a watcher that misses edits;
//   - when the folder's directories would leave the user's other
//     programs fewer than watchReserve inotify watches;
//   - for a day (Retry) after a daemon started this way could not watch:
//     it leaves FailedName in the store, saying why, and "turnback watch"
//     removes it once it watches.
//
// # Terms
//
// Local is what a command that ran in this process (not forwarded to a
// daemon) learnt of the folder: its work tree and store, the files and
// directories of its largest capture, and whether a capture timed out.
//
// # Failure behaviour
//
// Start never fails the command that calls it: it returns an error only
// when the daemon process could not be started (the caller warns), and
// a daemon that starts but cannot watch says why in watch.log in the
// store. StartDaemon keeps one old log (watch.log.old) once watch.log is
// over maxWatchLog.
package autowatch
