// Package ref finds and reads file content by reference: content a store
// does not copy (a file over turnback's size limit) because it already
// sits, verifiable by hash, somewhere turnback can read without running
// git (package turnback, "Content by reference").
//
// # Places
//
//   - LFS: a Git LFS object, <lfs dir>/objects/aa/bb/<sha256>, where the
//     LFS dir is lfs.storage from the repository's config (relative to
//     the common git dir) or <common dir>/lfs. The object's name is the
//     content's sha256.
//   - Git: a blob in a git object database, named by its git blob id
//     (SHA-1 of "blob <size>\x00" and the content): a loose object
//     (zlib) or an object in a pack (.idx version 2 binary search, then
//     the .pack entry, with OFS_DELTA and REF_DELTA chains resolved),
//     also in the databases objects/info/alternates names.
//   - Clone: a copy-on-write clone (FICLONE on Linux: btrfs, XFS with
//     reflink=1) in the store's clone directory, named by the content's
//     BLAKE3; CloneFile makes it.
//
// A Finder locates the repository of a directory (the nearest .git
// directory or file at or above it; a .git file's gitdir and a git
// dir's commondir are followed, for worktrees and submodules), says
// which digest can find a file (Want: the LFS oid for paths the top
// level .gitattributes gives filter=lfs, the git blob id for other paths
// in a repository, none elsewhere), and checks cheaply that a place
// still looks right (Check: present, right size). Lookup is by content,
// not by the index entry of the path: any commit's copy of the bytes
// counts, and a filtered file (CRLF, a clean filter) simply finds
// nothing. Places inside the work tree other than under a .git directory
// are refused (Finder.Exclude): a restore may delete them, so they
// protect nothing.
//
// # Records
//
// A Record is what a store keeps per content hash: the size, the two
// digests (zero when not computed) and the places found. Encode and
// Decode give its versioned binary form (version 1: size uvarint, the
// digests, then per place a kind byte and a directory).
//
// # Failure behaviour
//
// Nothing here writes to a repository or runs git. The repository may be
// damaged or hostile: every file is opened only if it is a regular file,
// without blocking (openRegular: a FIFO or device in its place is an
// error, never a hang). Open returns the
// bytes a place holds now, which may not be the content any more (an LFS
// object rewritten, a pack replaced): callers must verify what they read
// against the content's own hash (package turnback does, and treats a
// mismatch as "not restorable"). A missing or damaged object is an error
// wrapping ErrStale, or an error naming the file; a hostile pack or
// delta cannot make the reader allocate more than 2 GiB per object or
// follow a delta chain longer than 1000. Undeltified blobs are streamed;
// deltified ones are resolved in memory (base and result).
package ref
