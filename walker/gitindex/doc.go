// Package gitindex reads git's index file (.git/index) without the git
// binary, to tell which files of a work tree git tracks and which
// directories hold them. Package walker never skips those, as git never
// ignores what it tracks.
//
// # Format
//
// Versions 2, 3 and 4 are read: a 12-byte header ("DIRC", version,
// entry count), the entries, any extensions, and a trailing checksum of
// everything before it (SHA-1, or SHA-256 in a repository whose config
// sets extensions.objectFormat). An entry is 40 bytes of stat data, an
// object id, 16 bits of flags (16 more in version 3 and later when the
// extended flag is set) and a path: NUL-terminated and padded to a
// multiple of 8 bytes in versions 2 and 3; in version 4 a varint of
// bytes to drop from the previous path's end, then the rest,
// NUL-terminated and unpadded. Extensions (cached trees, resolve-undo,
// ...) are skipped by their sizes, but for the link extension. A
// checksum of zeros is git's index.skipHash and is accepted; any other
// must match.
//
// # Split index
//
// With core.splitIndex, git keeps most entries in a shared index,
// ".git/sharedindex.<id>", named by its checksum and rewritten seldom.
// The index proper then holds a "link" extension: the shared index's
// id, and two EWAH bitmaps of shared entries by position. The first
// marks those deleted. The second marks those replaced: the index's
// first entries, with empty paths, replace them in order, keeping
// their paths. The index's other entries are added: each replaces a
// shared one of the same path and stage, and one of stage 0 also
// drops the other stages of its path. Decode merges both as git's
// merge_base_index does, in order, reading both as streams. The shared
// index's checksum must be its id. A missing or damaged shared index,
// or either list out of git's order, is an error.
//
// # Failure behaviour
//
// Decode reads its input in bounded memory, and returns an error for
// anything malformed: a bad header, an entry or extension running past
// the checksum, a path longer than 64 KiB or holding "." or ".."
// elements, a checksum that does not match. It never panics. It reads
// the index twice: first through, to verify the checksum and find a
// link extension, then for the entries. A caller that cannot read an
// index treats nothing as tracked.
//
// # Use
//
// Load finds the git directory of a directory holding ".git" (a
// directory, or the "gitdir:" file of a worktree or submodule) and
// returns its Set of tracked directories and files (the files' paths
// prefix-compressed, with a Bloom filter for the lookups of untracked
// ones). A Cache keeps each index's
// Set by the index file's stat, so a process that captures again (the
// watch daemon) reads an index only when git rewrote it. A shared index
// never changes under its name, so the index's stat covers it too.
package gitindex
