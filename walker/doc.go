// Package walker captures a work tree into a content-addressed store. A
// capture is full, or incremental: it reads only what changed. It never
// writes to the work tree. The algorithms and their reasons are in
// docs/design.md.
//
// # Terms
//
//   - Capture: one walk that builds every directory's tree (package
//     manifest) bottom-up and returns the root.
//   - Ignored: matched by .gitignore, .ignore or .turnbackignore (package
//     ignore), a built-in name, or a directory that shows it was generated
//     (a CACHEDIR.TAG, pyvenv.cfg, ...). Ignored entries are in no tree.
//   - Tracked: a path git's index tracks, or a directory holding such
//     paths (package gitindex). As in git, it is never skipped, not even
//     by an ignore file's pattern, nor left uncaptured by the
//     large-new-directory rule. Below a directory a pattern ignores, only
//     tracked paths are captured. What git tracks that a pattern or a
//     built-in name ignores and the tree lacks (deleted, still in the
//     index) is listed in Result.TrackedIgnored: a stored state cannot
//     tell it from a path there untracked.
//   - Stat cache: a record per directory with each file's stat data and
//     content hash. A file with unchanged stat data is not read again.
//   - Racy window: stat data newer than the capture's start minus 100 ms
//     is not cached (20 ms on a local Linux filesystem, 2 s for
//     whole-second times). A same-tick change is never missed.
//   - Listing cache: on a local Linux filesystem, the record also keeps
//     the directory's names and stat. An unchanged directory is not listed
//     again, but each name is still lstat'ed.
//   - Lazy handle: there, a subdirectory is not opened until a listing,
//     a file read or a symlink needs it. Meanwhile its names are
//     lstat'ed by path through an open ancestor.
//   - Incremental capture: with Options.Base and Options.Dirty, only dirty
//     directories are read. Others take Base's tree as it is.
//   - Read by name: with Options.Names, a dirty directory is listed
//     (names only): a name gone is gone, a name new is read.
//     Only the names given and those that decide its ignore rules are
//     lstat'ed; its other entries are Base's. No record is written.
//     A name listed of another kind than Base's is read: the kinds come
//     from getdents, or from a record's listing only when that record
//     was written for Base's tree.
//   - Uncaptured: a file over Options.SizeLimit, or a new directory with
//     Options.LargeDirFiles files or more. Kind, size and count are kept,
//     not the content.
//   - LargeSums: the sha256 and git blob id of a file over the limit,
//     computed in the same read as its BLAKE3.
//   - Link group: files that are hard links of one another, by path.
//   - Totals: per-tree file counts kept between captures.
//
// # Invariants
//
//   - Nothing is opened or read outside the work tree. Symlinks are
//     recorded with their target and never followed. Only an lstat by
//     path may pass a directory replaced by a symlink during the capture.
//     What it finds is recorded only where the record vouches for that
//     inode. Otherwise the directory is opened one component at a time,
//     which refuses the symlink, and its names are lstat'ed again there.
//   - A name of a vouched listing that an lstat by path does not find,
//     or finds with an error, makes the directory listed again.
//   - Files are opened read-only, with O_NOATIME where the system allows.
//   - An incremental capture gives the same root as a full walk.
//   - A snapshot id depends on paths and content, never on inode numbers.
//   - A fifo is never opened. Sockets and devices are skipped and counted.
//   - A stat cache or listing record that does not decode, or names a bad
//     entry, only costs a read.
//
// # Failure behaviour
//
// A file that cannot be read, or that keeps changing while read, is
// recorded as uncaptured and listed in Stats.Problems. So is an unreadable
// directory. A file that vanishes before it is read is left out. Only
// store errors, a cancelled context and an unreadable root abort the
// capture. Then nothing is recorded.
package walker
