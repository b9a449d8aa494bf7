// Package restore changes a work tree from one captured state to another,
// all or nothing.
//
// # Terms
//
// An Action moves one path from Old (what a capture just saw there) to New
// (nil removes it). NewPlan checks the actions against the disk: an
// action whose new content was never captured, or that would create a
// path where something the snapshot does not know is in the way (an
// ignored file, say), is Blocked; the removal of a directory that still
// holds anything the plan does not remove is Kept (the directory stays).
//
// # Algorithm
//
// Apply runs in steps:
//
//  1. stage: every new file is written to a staging name
//     (".turnback-<id>-<n>") in the deepest directory of its target that
//     already exists, with its final permission bits, and fsynced. A
//     staging list in the journal directory (the store) names the files
//     first, so a crash here leaves nothing behind after recovery.
//  2. journal: the full plan and the caller's metadata are written to the
//     journal file, fsynced and renamed into place. This is the commit
//     point.
//  3. apply: removals deepest first, then mkdirs, renames of staged files
//     and symlink swaps shallowest first, then permission bits (files, and
//     directories deepest first). Every step looks at the disk before it
//     acts, so running the journal again after a crash converges on the
//     same result.
//  4. commit: the caller's metadata (session records) is committed, and
//     the journal removed.
//
// Recover, run before anything else by the next command, rolls a
// journaled restore forward, or deletes the staged files of one that
// never reached its journal.
//
// # Confinement
//
// Directories are opened one component at a time from an os.Root of the
// work tree; each component must be a real directory (never a symlink) and
// the handle opened must be the directory that was checked, so a directory
// swapped for a symlink mid-restore cannot redirect a write. Leaf
// operations go through the directory's own handle.
//
// # Failure behaviour
//
// Any error before the journal (a full disk while staging, a damaged blob:
// content is verified against its hash as it streams) removes the staged
// files and returns it: the work tree is unchanged. An error after the
// journal returns it with the journal in place; the next Recover finishes
// the restore. A directory that cannot be removed because something new
// appeared in it is reported as Kept rather than failing the restore.
package restore
