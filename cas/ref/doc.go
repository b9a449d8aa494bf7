// Package ref finds and reads content that turnback does not copy into
// its store because it already sits, verifiable by hash, somewhere turnback
// can read without git ("protected by reference", DESIGN.md): a Git LFS
// object, a blob in git's object database, or a copy-on-write clone in the
// store.
//
// Terms. A Record (stored by the caller, keyed by the content's BLAKE3)
// holds the content's size, its sha256 (the LFS oid) and its git blob id,
// computed in the same read as the BLAKE3, and the Refs found to hold it.
// A Ref names a place: the LFS objects directory, a git objects directory,
// or the store's clone directory; the object within it follows from the
// Record's digests.
//
// Finding (at capture, Finder.Find): the repository of a file's directory
// is the nearest ancestor with a .git directory or a .git file
// ("gitdir:"), following commondir (linked worktrees) and lfs.storage in
// the common config. An LFS object counts when it is a regular file of the
// right size, a git blob when the object database lists its id (loose, or
// in a version 2 pack index); no content is read. Places inside the work
// tree other than under a .git directory are refused (Finder.Exclude): a
// restore may delete them, so they protect nothing.
//
// Reading (at restore, Open): LFS objects and clones are opened as files;
// git blobs are read from loose objects (zlib) or packs, whole objects
// streamed, deltified ones (OFS_DELTA, REF_DELTA, chains up to
// maxDeltaDepth) resolved in memory up to maxInMemory. Nothing here
// proves the bytes: the caller reads through a verifier of the BLAKE3 it
// recorded, so a place that changed gives an error, never other bytes.
//
// Failure behaviour. The repository may be damaged or hostile: every file
// is opened only if it is a regular file, without blocking (openRegular:
// a FIFO or device in its place is an error, never a hang); sizes,
// offsets, delta instructions and chain depth are bounded, and a damaged
// object is an error wrapping ErrStale or a plain error, never a panic.
// Errors from finding make the file unprotected; errors from reading make
// the path not restorable, with the reason. The package never writes
// into a repository and never runs git. Clones (CloneFile, FICLONE on
// Linux) are made in the store through a temporary name, fsynced; where
// the filesystem cannot clone, ErrNoClone.
package ref
