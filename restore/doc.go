// Package restore changes a work tree from one captured state to
// another, all or nothing. The steps and their reasons are in
// docs/design.md.
//
// # Terms
//
//   - Action: one path from Old, what a capture just saw, to New. A nil
//     New removes the path.
//   - Plan: the actions, checked against the disk by NewPlan, or by
//     NewPlanAfter against the disk as earlier plans would leave it.
//   - Blocked: an action whose content was never captured, or whose path
//     holds something the snapshot does not know.
//   - Kept: a directory to remove that still holds something. It stays.
//   - Staging name: ".turnback-<id>-<n>", where a new file is written
//     before it is put in place.
//   - Journal: the plan, written and synced in the store. It is the
//     commit point.
//   - Displaced: what an edit put at a path after the check. It is saved
//     with Options.Save and returned, never lost.
//   - Recover: finishes a journaled restore, or removes the staged files
//     of one that never reached its journal.
//   - Rollback: puts back what an unfinished restore changed.
//
// # Steps
//
//  1. Stage every new file, synced, under a staging name.
//  2. Check every path against Old, reading content from disk. A
//     difference is a *ChangedError, and nothing changes.
//  3. Write the journal.
//  4. Apply: removals, mkdirs, renames, then permission bits.
//  5. Sync the changed directories, commit the caller's records, remove
//     the journal.
//
// # Invariants
//
//   - Nothing is destroyed unseen. A file is replaced by an atomic
//     exchange, or renamed aside first. What was there is read, and saved
//     if it is not what the plan expected.
//   - Every step looks at the disk before it acts, so running the journal
//     again converges.
//   - Directories are opened one component at a time from an os.Root. A
//     symlink is never followed.
//   - As root, setuid and setgid bits are set only when the recorded
//     owner holds the file.
//   - Holes stay holes. Hard links of one group come back as links.
//   - No staging file is left once a restore or rollback completes.
//
// # Failure behaviour
//
// An error before the journal removes the staged files: the work tree is
// unchanged. An error after it is an *UnfinishedError (ErrUnfinished)
// with the journal in place. Recover tries again; Rollback goes back.
package restore
