// Package handoff is a command's side of handing its capture over to
// the watch daemon it started while capturing, and the handoff file
// that carries it: the notes a capture takes of the directories it
// lists before the daemon watches every directory, the prints that
// tell whether those directories changed meanwhile, and the file's
// format, writing and checks (Doc, Write, Read). It is internal so
// that this plumbing of the CLI's auto-start stays out of the
// library's API: package turnback sets Arm, and internal/daemon calls
// it. The root package's handoff.go does the parts that need its Repo.
//
// # Protocol
//
// A command that starts a watch daemon while its own capture runs (the
// daemon then builds its watcher meanwhile: StartWatcher) can hand that
// capture over, so that the daemon, once it has the store, needs no
// first capture of its own (Repo.Watch):
//
//   - The command arms its Repo (Arm) before it captures. Each capture
//     then notes, as it goes, the directories it lists before the
//     daemon has said that it watches every directory (Handoff.Built).
//   - A directory listed after that was listed with its watch in place:
//     whatever changed in it after the listing, the watcher reports
//     (watch.Watcher.CountFromStart counts the events that came during
//     the build). One listed before may have changed unseen.
//   - The directories below an early one that the capture listed after
//     that were reached through the early one's handle and under its
//     ignore files as they were when it was listed: a directory moved
//     or replaced at its path, or rules that changed, before its watch
//     was added, no event reports. So each early directory's print
//     (DirPrint: its identity and ignore files) is taken when it is
//     listed and again after the re-list (below): any difference, and
//     no handoff is written.
//   - After a capture, if the daemon has said so, the command writes the
//     handoff file in the store directory (atomically): the capture's
//     root, its settings, the directories listed too early, the counts
//     of its trees (walker.TreeTotals.AppendPlain) and the daemon's pid.
//     Each armed capture first removes the file an earlier one left
//     (and Watch removes it when a command's capture is its base
//     already): a handoff nobody took must not wait for a later daemon
//     that gets the same pid.
//   - The daemon, in Watch, takes the file (and removes it). If it names
//     this process and this work tree, was made with the same settings,
//     its root is in the store and the watcher has not doubted, the root
//     is the base and the directories listed too early are dirty, with
//     everything the watcher reported since: the first capture reads
//     those alone. Otherwise Watch makes its first capture as without a
//     handoff.
//
// # Terms
//
//   - Early directory: one the capture listed before Built was called;
//     it may have changed unseen, so the daemon reads it again.
//   - Print: a directory's identity and its ignore files when it was
//     listed (DirPrint); a different print after the re-list means no
//     handoff is written.
//
// # Invariants
//
//   - A Handoff's methods are safe for concurrent use.
//   - Nothing is vouched for until both Started and Built were called.
package handoff
