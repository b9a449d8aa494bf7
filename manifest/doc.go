// Package manifest holds turnback's trees: one directory's entries, encoded
// compactly and canonically, addressed by the BLAKE3-256 hash of that
// encoding, and linked into a Merkle tree through the hashes of their
// subdirectories. It also diffs and walks stored trees.
//
// # Entries
//
// A tree is a list of entries sorted by name in byte order, names unique.
// Each entry is a file, a directory, a symlink or a fifo (named pipe) and
// carries its permission bits (0o7777: rwx for user, group, other, plus
// setuid, setgid, sticky) and, when recorded (Owned), its owner's numeric
// uid and gid. Timestamps and other metadata are not part of a tree.
// The bits are numbered as chmod(2) numbers them (ModeSetuid is 0o4000),
// not as fs.FileMode does; ModeOf and FileMode convert between the two.
//
//	kind     Size           Hash                Target   Uncaptured  Files            LinkTo
//	file     content bytes  content hash        ""       allowed     0                allowed
//	dir      0              hash of its tree    ""       allowed     uncaptured only  ""
//	symlink  len(Target)    zero                1..4096  never       0                ""
//	fifo     0              zero                ""       never       0                ""
//
// An uncaptured file or directory is present on disk but its content is not
// stored. An uncaptured file's Hash is the hash of its content when it was
// read without being stored (a file over the size limit: so a same-size
// edit still changes the tree), zero when it could not be read. An
// uncaptured directory's Hash is zero and Files counts the
// non-ignored files inside it, recursively. A captured file or directory
// always has a non-zero Hash. Names are one path component: not empty, not
// "." or "..", no '/' or NUL, at most 255 bytes. Symlink targets are data,
// never followed: they may be absolute or contain "..", but hold no NUL.
//
// # Paths
//
// A path inside a tree is slash-separated and relative to its root, which
// is "": "a", "a/b". JoinPath, SplitPath, ParentPath and DisplayPath (the
// root shown as ".") are the one spelling of those operations for every
// package that handles tree paths, and ComparePaths is the order Walk
// visits them in.
//
// # Hard links
//
// Files that are hard links to one another inside the work tree (one
// inode, several paths, all captured) form a link group. Every member
// records in LinkTo the path, relative to the work tree and
// slash-separated, of the group's first member in tree order (depth-first,
// names sorted at each level: the order of Walk), that member included. A
// file with no other link inside the work tree has no LinkTo, whatever
// its link count. The group is named by a path, never by inode numbers,
// so a tree's hash stays a function of what it holds.
//
// Link identity is not content: Diff does not report a change of LinkTo
// alone (a file that became or stopped being a hard link of another with
// the same content, mode and owner is unchanged). Restores use it to
// recreate the links among the files they write.
//
// # Owners
//
// Captures on unix record every entry's uid and gid. Trees written before
// owners were recorded (version 1) have none, and an entry without an
// owner matches any owner: Diff reports an owner change (ModeChanged) only
// when both entries record one, so the first capture after an upgrade does
// not make every path look changed.
//
// # Encoding, version 1
//
// All integers are unsigned LEB128 varints (encoding/binary's Uvarint) in
// their shortest form.
//
//	offset/field    size        meaning
//	magic           4           "TBTR" (0x54 0x42 0x54 0x52)
//	version         1           0x01
//	count           uvarint     number of entries
//	then count entries, in name order, each:
//	  name length   uvarint     1..255
//	  name          n bytes     the name
//	  kind          1           1 file, 2 dir, 3 symlink
//	  flags         1           bit 0: uncaptured; bit 1: hashed (an uncaptured
//	                            file with a hash); bits 2-7 must be 0
//	  mode          uvarint     0..0o7777
//	  size          uvarint     0..1<<62 (0 for a dir, len(target) for a symlink)
//	  and by kind:
//	  file          32          content hash; absent if uncaptured and not hashed
//	  dir           32          tree hash, if captured
//	                uvarint     file count, if uncaptured (instead of the hash)
//	  symlink       uvarint     target length, 1..4096
//	                n bytes     target
//
// The empty tree is the six bytes 54 42 54 52 01 00.
//
// # Encoding, version 2
//
// Version 2 (version byte 0x02) is version 1 with three additions: kind 4
// (fifo: mode and size 0, nothing after the size but the fields below),
// and two flag bits:
//
//	flags bit 2     owned: after size, uid uvarint (0..2^32-1) and
//	                gid uvarint (0..2^32-1)
//	flags bit 3     linked: after the kind's fields, the LinkTo length
//	                uvarint (1..4096) and its bytes
//
// Encode writes version 1 when no entry has an owner, a LinkTo or the
// fifo kind, version 2 otherwise; Decode rejects a version 2 encoding that
// version 1 could hold, and the new kind and flags in version 1, so every
// tree still has exactly one encoding. Trees stored before version 2
// decode, re-encode and hash exactly as before (testdata/tree-v1.golden).
//
// Decode is strict and accepts exactly what Encode produces, so for every
// input it accepts, Encode(Decode(b)) == b byte for byte, and a tree has one
// encoding and one hash. It rejects a wrong magic or version, truncated
// data, trailing bytes, non-minimal or overflowing varints, an entry count
// larger than the remaining bytes could hold (checked before allocating),
// invalid, duplicate or unsorted names, unknown kinds or flag bits, modes
// above 0o7777, sizes above 1<<62, ids above 2^32-1, LinkTo paths that are
// not clean relative paths (empty, ".", ".." or over-long components, a
// leading or trailing '/'), and any field that does not belong to the
// entry's kind (see the table above). Tree.Validate applies the same
// rules to a Tree in memory and Tree.Encode refuses a tree that fails them.
//
// # Merkle property
//
// A tree's address is cas.Sum of its encoding (Tree.Hash). A directory
// entry holds its subtree's address, so a root hash fixes the content of
// every captured file and directory below it: equal hashes mean equal
// subtrees. Two snapshots of an unchanged folder have the same root hash,
// and a snapshot that changes 10 files in a 1M-file tree adds only the
// trees on the paths from those files to the root.
//
// # Diff
//
// Diff(a, b) walks both trees together, merging each pair of directories
// by name, and reports changes in depth-first pre-order, sorted by name at
// each level:
//
//   - Equal hashes are skipped without loading: equal roots cost nothing,
//     and only directories whose hashes differ are loaded. The zero hash and
//     EmptyTreeHash stand for the empty tree and are never loaded.
//   - A name only in a is Deleted, only in b is Added; if it is a captured
//     directory, every entry below it follows, with the same kind.
//   - Two captured dirs: ModeChanged if their modes or owners differ, then, if their
//     hashes differ, the diff of their trees.
//   - Two dirs of which one or both are uncaptured: Modified if the entries
//     differ in any field (owner as above); their contents are never
//     compared.
//   - Two files, symlinks or fifos: Modified if hash, target, size or the
//     uncaptured flag differ (whatever the mode and owner); else
//     ModeChanged if the mode or the owner differs (a chmod or chown
//     alone is a change). LinkTo is never compared.
//   - Different kinds: TypeChanged, then Deleted for everything below the
//     old entry if it was a captured dir, and Added for everything below the
//     new one if it is a captured dir.
//
// Walk visits every entry below a root in the same order, descending into
// captured directories only.
//
// Both read trees through a Loader: NewStoreLoader reads them from a
// store (anything with GetBlob, such as *cas.Store), NewCachingLoader
// remembers those already read.
//
// # Failures
//
// Decode never panics: any bad input gives an error wrapping ErrMalformed
// that names the byte offset. Errors from a Loader are wrapped as
// `manifest: load tree of "a/b": ...` with the path of the directory being
// loaded ("." for the root); a loaded tree that fails Validate, a nil tree,
// or a chain of directories deeper than MaxDepth is reported the same way.
// Diff and Walk check ctx before each load and each entry and return
// ctx.Err() once it is cancelled. An error returned by the callback stops
// the traversal and is returned unwrapped. Changes already reported stay
// reported: callers that need all-or-nothing collect first, act later.
package manifest
