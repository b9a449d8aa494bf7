// Package walker captures a work tree into a content-addressed store,
// in full or (see "Incremental capture") reading only what changed.
//
// # Algorithm
//
// Capture reads one directory at a time through a descriptor or an
// os.Root opened on it (see "Listing": names never resolve outside the
// work tree, symlinks are recorded with their target and never followed) and builds the directory's tree (package
// manifest) bottom-up. Subdirectories and file reads run on a bounded set
// of goroutines (Options.Workers; more than the CPUs, as many wait on
// the disk): when a slot is free the work is handed to a new goroutine,
// otherwise the walker does it inline, so the walk never waits on itself.
//
// For each directory the ignore files (.gitignore, .ignore,
// .turnbackignore; see package ignore) are loaded and pushed on the
// matcher before any entry is judged. Ignored entries are invisible: not
// in any tree, not read, never counted (their names are only in the
// stat cache's listing, see "Listing cache").
//
// A directory is skipped for what it is, not for its name (package
// ignore, Matcher.Judge): one holding paths git tracks is never skipped
// by a default rule nor left uncaptured by the large-new-directory
// rule (nor is one an ignore file's "!" keeps); other directories
// with a default name are skipped only when their listing shows a
// marker (a CACHEDIR.TAG, pyvenv.cfg, ...), checked once the directory
// is listed, before any of its entries is read. What git tracks comes
// from the index of the repository holding the work tree (at its top or
// above it) and of each directory with a ".git" inside it (package
// gitindex), read once per capture, or not at all when
// Options.Index holds it unchanged. An incremental capture whose Base
// was made under other index versions than today's (or that
// Options.Index never saw) walks the whole tree: a "git add" changes
// which directories are tracked without any event in them. Each
// capture re-judges every directory it lists, so a listing taken from
// the stat cache (below) stays right when the rules change: a
// CACHEDIR.TAG added changes its directory's stat, and its content is
// read whenever it is there.
//
// # Stat cache
//
// A StatCache record per directory maps each file name to the stat data
// (size, mtime, ctime, inode, mode) and content hash the last capture saw.
// A file whose stat data is unchanged is not read. The racy case (a file
// changed twice within one timestamp tick, so its stat data does not
// change) is handled as git handles its index: an entry is written to the
// cache only if its mtime and ctime are older than the capture's start by
// more than the timestamp granularity (100 ms; 2 s for files whose mtime
// has no sub-second part, as on coarse filesystems). Entries too close to
// the capture are re-read next time. Restores add the files they wrote
// with Record, under the same rule.
//
// A full capture reads every record in one prefix scan of the store
// (at most 32 MiB of them at once; the rest one at a time as their
// directories are read), not one lookup per directory. A capture writes
// its records once every blob they name is flushed, as records of the
// LSM tree; past 16 MiB of them (a first capture of a few hundred
// thousand files) through a batch, which puts most in pack files: set
// into the LSM tree, that many had Badger flush and compact tables the
// whole time, and the process's memory double.
//
// # Listing cache
//
// On Linux, on a local filesystem, a record also holds the directory's
// names: every name its listing held (ignored ones too), as the record's
// file entries, its subdirectories and a list of the rest, with the
// directory's own stat (fstat on its descriptor, taken before it was
// listed: size, mtime, ctime, inode, mode, device). Creating, removing
// or renaming a name changes a directory's mtime and ctime, and no one
// can set a ctime back, so a capture that finds the directory's stat
// equal to the record's takes the names from the record instead of
// reading the directory with getdents; it still lstats every name, so
// every file's stat is looked at as before. Only a stat older than the
// capture's start by the racy window (above) is recorded: a change made
// after the stat was taken, in the same timestamp tick, could otherwise
// leave it unchanged. A record whose names are not each one path
// component (never "." or "..", no slash, no NUL), or not named exactly
// once, is not used: the directory is read as usual. On a network
// filesystem, whose times another machine's clock or a client's cache
// may keep, directories are always read; on overlayfs too, where a
// merged directory's stat is its upper directory's while its names are
// every layer's (a lower layer changed while the overlay was not
// mounted adds names under an unchanged stat). Nor is an encrypted
// directory's (fscrypt) listing kept: its names are ciphertext while
// its key is absent and plaintext once it is added, its stat unchanged.
//
// A record also holds the hash of the directory's tree as the capture
// that wrote it computed it, and that tree's subdirectory entries (hash,
// uncaptured, file count). The large-new-directory rule needs the
// previous snapshot's tree of every directory with subdirectories; when
// the record's tree is that tree (same hash) and Options.Previous is in
// the store, the entries come from the record instead of loading the
// tree. They were taken from the entries the hash was computed over, so
// they say what that tree says; a record written for another tree, or
// one that does not decode, only means the tree is loaded.
//
// # Listing
//
// On Linux (amd64, arm64) each directory is one bare descriptor, opened
// with openat(O_DIRECTORY|O_NOFOLLOW|O_NOATIME) on its parent's: it is
// listed with getdents, each name lstat'ed with
// fstatat(AT_SYMLINK_NOFOLLOW), and its files and subdirectories opened
// with openat(O_NOFOLLOW) and symlinks read with readlinkat, all on that
// descriptor. A listed name is one component, never "." or "..", so this
// keeps os.Root's guarantees (nothing followed, nothing outside the
// directory) with one open per directory and one system call and no
// allocation per entry; an os.Root costs two opens per directory and the
// poller's bookkeeping for each. A directory that can be listed but not
// searched is unreadable, as a failed open would make it (an empty one
// is simply empty). Elsewhere every directory is an os.Root.
//
// The per-entry slices of a directory (its listing, lstat results, the
// entries built, the stat cache records old and new, the encoded tree)
// come from a pool and go back to it once the directory is done; names
// are substrings of one copy of each getdents buffer (package dirent)
// and of each record. A capture of an unchanged tree so allocates about
// a sixth of the bytes it would with fresh slices per directory, which
// is most of what its garbage collection costs.
//
// # Incremental capture
//
// With Options.Base (the root of an earlier capture of the same work
// tree, with the same options) and Options.Dirty (true for a directory
// that changed, or below which something changed, since Base: package
// watch provides it), Capture reads only the dirty directories. A
// subdirectory is still lstat'ed in its parent's listing (so its mode is
// current; a mode change also makes the parent dirty), but if Dirty is
// false for it and Base holds it as a captured directory, Base's entry
// (its tree hash) is taken as it is, unread. If Dirty("") is false,
// Base's root is returned without reading anything. Dirty must be true
// for every ancestor of a dirty directory: a directory is entered only
// if it is. Directories absent from Base, and Base trees the store
// cannot load, are read as usual.
//
// Reuse gives what reading would only when reading is repeatable, so a
// Base tree holding an entry that a capture reads again even if nothing
// changed is never reused: a file that could not be read (uncaptured, no
// hash) and an uncaptured directory without a file count (unreadable, or
// a large new directory since emptied). Reused directories keep Base's
// large-new-directory decisions: exact when Options.Previous is Base (or
// was Previous for Base).
//
// Stats count reused directories from Base's trees (Files, Dirs,
// Symlinks, Bytes and Uncaptured, with the reason their entries imply),
// so they equal a full capture's; Options.Totals keeps those counts per
// tree hash between captures, so that counting costs nothing the next
// time. A capture given Totals (a full one too) counts every tree it
// writes from its entries and its subdirectories' counts just made, so
// the incremental capture that follows a full one loads no tree to
// count it. TreeTotals.AppendPlain and LoadPlain carry the counts to
// another process (leaving out trees with uncaptured entries, which the
// receiver counts by loading them). Skipped and Problems cover only directories read. DirsRead and
// DirsReused say how many directories were listed and how many taken
// from Base; both are zero without Base and Dirty, where the capture is
// exactly the full walk above.
//
// Options.Listing hears of each directory before it is opened to be
// read (the root included): a caller that must know which directories
// were listed before some moment (the watch daemon's handoff, see
// package turnback) notes them there.
//
// # Owners, fifos and hard links
//
// Every entry records its numeric owner (uid, gid) where the platform
// has one (not on Windows). On Linux a fifo is recorded as
// manifest.KindFIFO from its lstat alone: it is never opened (opening one
// blocks until a writer comes); elsewhere fifos are skipped, as restores
// can remake them on Linux only. A regular file with more than one link is noted with
// its device and inode while the directories are read; once the walk is
// done, the notes are grouped by inode, and each group of two or more
// captured files gets LinkTo (the path of its first member in tree
// order) written into the trees with manifest.Edit. Inode numbers live
// only in the capture's memory, so the snapshot id depends on which
// paths are linked together, never on inode numbers. A file whose other
// links are all outside the captured scope (outside the work tree,
// ignored, or inside an uncaptured directory) is in no group.
//
// Incremental capture and links: a directory whose Base tree holds a
// group member is always read (its members' groups depend on other
// directories), and when a file read has links the capture did not find
// while it reused some directories (a new link to a file in a directory
// no event touched, or a link outside the scope), it walks the whole
// tree instead, as a capture without a watcher does, so the result always
// equals a full walk's. A write through a link whose other name is outside
// the scope or ignored changes the file without any event in its
// directory: a watcher-driven capture may miss it (restores therefore
// hash what they replace; see package restore).
//
// # What is not captured
//
// Regular files over Options.SizeLimit, and directories absent from the
// previous snapshot that hold Options.LargeDirFiles or more non-ignored
// files, are recorded as uncaptured (kind, size, file count) without
// content; an uncaptured directory stays uncaptured while it exists.
// A file over the limit is still read, for its BLAKE3 (so a same-size
// edit changes the tree), and, as Options.LargeSums asks per file, for
// its sha256 and git blob id in the same read (LargeSums in
// Stats.Uncaptured): the caller looks for its content where it already
// sits (package cas/ref) without reading it again.
// Sockets and devices (and fifos outside Linux) are skipped and counted
// (Stats.Skipped).
//
// # Failure behaviour
//
// Capture never writes to the work tree (files are opened read-only, with
// O_NOATIME where the platform allows). A file that cannot be read, or
// that keeps changing while it is read (three attempts, compared by fstat
// before and after), is recorded as uncaptured and listed in
// Stats.Problems; an unreadable directory likewise. A file that vanishes
// between listing and reading is left out. Only store errors, context
// cancellation and an unreadable work-tree root abort the capture; then
// nothing is recorded (blobs already written are unreferenced until gc).
package walker
