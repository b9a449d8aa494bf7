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
//     already exists, with its final permission bits. A staging list in
//     the journal directory (the store) names the files first, so a
//     crash here leaves nothing behind after recovery. The fsyncs run as
//     one batch (durable.go): files are written without waiting for any
//     sync (so a create never queues behind a journal commit); then the
//     writeback of all of them is started at once (sync_file_range on
//     Linux), and every file and every directory that got a staging name
//     is fsynced by a bounded group of goroutines (concurrent fsyncs share
//     the file system's journal commits) while step 2 reads the tree. A
//     restore of more than 128 files syncs each full chunk of 128 while
//     it writes the next. Before step 3 Apply waits for the batch: at the
//     commit point every staged entry (data, owner, mode and directory
//     entry; links and fifos too) is durable, and a failed sync is an
//     error before the journal. (Directory syncs are strict on Linux;
//     elsewhere, and on file systems that cannot sync a directory, they
//     are best effort, as for the journal directory.)
//  2. check: unless Options.Force, every path the plan replaces, removes
//     or creates is compared with the plan's Old from the disk (lstat,
//     and the full content of files: never a cached or watched answer).
//     A difference is an edit made since the plan (or one a watcher did
//     not see: a write through mmap or an outside hard link): Apply
//     removes the staged files and returns a *ChangedError; nothing
//     changed.
//  3. journal: the full plan and the caller's metadata are written to the
//     journal file, fsynced and renamed into place, and the journal
//     directory fsynced. This is the commit point. The staging list is
//     then removed without a sync of its own (a journal of the same id
//     overrides it; the journal's removal syncs that directory).
//  4. apply: removals deepest first, then mkdirs, renames of staged files
//     and symlink swaps shallowest first, then permission bits (files, and
//     directories deepest first). Every step looks at the disk before it
//     acts, so running the journal again after a crash converges on the
//     same result.
//  5. commit: every directory whose entries the apply changed (the
//     parent of each path it removed, placed or replaced, if still a
//     directory) is fsynced, in parallel, so that on file systems that
//     do not order directory updates across directories (btrfs, ext4
//     with fast_commit) a power loss cannot keep the journal's removal
//     and lose a rename; a failed sync leaves the restore unfinished
//     (Recover completes it). Then the caller's metadata (session
//     records) is committed, and the journal removed.
//
// # Edits made while a restore runs
//
// After the check, an edit can still land before a path is replaced. So
// nothing is destroyed unseen: a staged file (or new symlink) is put in
// place with renameat2(RENAME_EXCHANGE), which swaps it with what is at
// the path in one step, so what was there survives under the staging
// name; a file or symlink to remove is first renamed aside (to
// ".turnback-<id>-o<n>"). What was taken out is then read: if it is the
// plan's Old (or New) it is deleted; otherwise it is saved with
// Options.Save (durably, in the store), recorded in the journal, and only
// then deleted. The displaced entries are returned (Result.Displaced) and
// handed to Options.Amend before the commit, so the caller's checkpoint
// includes them. A directory or special file found where a file was
// expected cannot be saved: it is put back, and the path is left as it
// is (reported as Kept). A crash at any point is finished by Recover,
// which settles whatever is still under our names the same way.
//
// What remains: a write through a file descriptor opened before the
// exchange and made after the displaced file was read goes to the
// displaced file and is lost with it (as with any program that replaces
// a file by rename). Where renameat2 is not available (not Linux, or a
// filesystem without it) the live entry is renamed aside and the staged
// one renamed in: the path is absent for the moment between the two
// renames, and nothing is lost either. A directory's removal uses
// rmdir(2), which fails on anything put in it meanwhile (the directory
// is then kept).
//
// Recover, run before anything else by the next command, rolls a
// journaled restore forward, or deletes the staged files of one that
// never reached its journal.
//
// # Metadata
//
// The stager (stage.go) writes each staged entry with its metadata before
// the commit point:
//
//   - Owner and mode (owner.go). As root, the owner is set first (fchown
//     on the open staged file, lchown by name through the directory handle
//     otherwise), to the recorded uid/gid, or, for an entry recorded
//     without one, to the owner of what is at the path now, else of its
//     directory; then the mode. Setuid, setgid and sticky are kept only if
//     lstat then shows the recorded owner (a chown the system refuses, an
//     id the user namespace cannot map, or an entry without a recorded
//     owner drops them), and setuid (setgid) only if the user (group)
//     exists in the system's database. Not as root, owners are left to the
//     process and the mode is set as recorded. Directories are made with
//     their owner and get their mode in the permission step, which for
//     every entry not staged runs owner, then mode (setMeta), so chown
//     never clears a bit set after it.
//   - Sparse files (sparse.go): content is copied in 256 KiB reads; aligned
//     4 KiB blocks of zeros are skipped with positioned writes of the data
//     around them, and ftruncate sets the size, so holes stay holes.
//   - Fifos: mkfifoat at the staging name on the directory handle, then
//     owner and mode; placed by the same rename/exchange as a staged file.
//     A fifo is never opened (settle and onDisk judge it by kind).
//   - Hard links: entries with the same LinkTo (manifest's link groups)
//     staged in one restore share one inode: the first one staged is
//     written, later ones are linkat()ed to it through the two directory
//     handles (flags 0: a symlink is never followed), when content, mode
//     and owner agree; a link the file system refuses (another file system,
//     too many links) falls back to writing a copy. A path whose only
//     difference is its link group is not a change (manifest.Diff), so a
//     restore never rewrites a file just to relink it.
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
// content is verified against its hash as it streams, or a path found
// changed by the check) removes the staged files and returns it: the work
// tree is unchanged. An error after the journal (a rename refused with
// EPERM by an immutable file, EIO, ENOSPC) returns an *UnfinishedError
// (ErrUnfinished) with the journal in place: the restore is not done.
// Every later Recover tries again to finish it, and fails the same way
// (naming the path and the cause) until it can, leaving the journal; or
// Rollback puts back everything the interrupted restore changed (paths
// edited since are left and reported), applied as a restore of its own
// whose journal replaces the interrupted one, so a crash during it is
// recovered too. No staging file (".turnback-*") is left once a restore
// or a rollback completes. A directory that cannot be removed because
// something new appeared in it is reported as Kept rather than failing
// the restore.
package restore
