// Package handoff is a command's side of handing its capture over to
// the watch daemon it started while capturing (the root package's
// handoff.go has the protocol): the notes a capture takes of the
// directories it lists before the daemon watches every directory, and
// the prints that tell whether those directories changed meanwhile. It
// is internal so that this plumbing of the CLI's auto-start stays out of
// the library's API: package turnback sets Arm, and internal/daemon
// calls it.
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
