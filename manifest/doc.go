// Package manifest holds turnback's trees. A tree is one directory's
// entries, encoded canonically and addressed by the BLAKE3-256 hash of
// that encoding. Trees link into a Merkle tree through their
// subdirectories' hashes. The package also diffs and walks stored trees.
// The encoding tables and the reasons are in docs/design.md.
//
// # Terms
//
//   - Entry: a file, directory, symlink or fifo. It carries a name, its
//     permission bits (0o7777, numbered as chmod numbers them) and, when
//     Owned, a numeric uid and gid. Timestamps are not part of a tree.
//   - Tree: entries sorted by name in byte order, names unique.
//   - Uncaptured: present on disk, content not stored. A file keeps its
//     hash if it was read. A directory keeps its file count.
//   - Link group: files that are hard links of one another. Each member's
//     LinkTo names the group's first member in Walk order.
//   - Path: slash-separated, relative to the root "". JoinPath,
//     SplitPath, ParentPath and DisplayPath are the one spelling.
//   - Change: Added, Deleted, Modified, ModeChanged or TypeChanged.
//   - Loader: reads trees for Diff and Walk. NewStoreLoader reads a
//     store; NewCachingLoader remembers what it read. Through a
//     StoreLoader, or a CachingLoader over one, Diff compares encodings
//     and decodes only the entries whose bytes differ (an entry's
//     encoding depends on it alone), and Find decodes only the entries
//     on its path.
//   - Version 1 and 2: the encodings. Version 2 adds owners, LinkTo and
//     fifos. Encode writes version 1 when it can.
//
// # Invariants
//
//   - One encoding per tree: Decode accepts exactly what Encode writes,
//     so Encode(Decode(b)) equals b.
//   - Equal hashes mean equal subtrees. Diff never loads them.
//   - Names are one path component: not empty, not "." or "..", no '/'
//     or NUL, at most 255 bytes.
//   - Symlink targets are data, never followed.
//   - A tree's hash depends on paths and content, never on inode numbers.
//   - LinkTo alone is never a change. An owner change counts only when
//     both sides record an owner.
//   - Trees stored in version 1 hash as they always did
//     (testdata/tree-v1.golden).
//
// # Failure behaviour
//
// Decode never panics. Bad input is an error wrapping ErrMalformed that
// names the byte offset. Loader errors name the directory being loaded.
// Diff and Walk stop when ctx is cancelled. An error from the callback
// stops the traversal and is returned unwrapped.
package manifest
