// Package cas is turnback's content-addressed store. File content (a
// blob) is kept under its BLAKE3-256 hash in an ordered key/value
// Backend, usually a Badger database. The reasons behind its choices are
// in docs/design.md.
//
// # Terms
//
//   - Address, Hash: BLAKE3-256 of the content. It does not depend on how
//     the content is stored. People see 12 hex digits (Hash.Short).
//   - Blob: a record under b/<hash>: one codec byte, then the payload.
//   - Codec: 0 is raw, 1 is one zstd frame, 2 a member of a block
//     (block.go: small files compressed together, one pack value per
//     block). Content is compressed only
//     when that saves at least 1/32 of it.
//   - Chunk, chunk list: content over SmallFileMax is cut into
//     content-defined chunks of about 256 KiB. Its chunk list, under
//     x/<hash>, names them in order.
//   - Reference record: r/<hash>, where content the store does not hold
//     sits. Package cas/ref encodes it.
//   - Backend: Get, Has, Set, Delete, Scan, NewBatch, Sync, Close.
//     Badger (OpenBadger) and Memory (NewMemory) implement it. Callers
//     hold Badger as a Backend, or as a small interface of their own
//     for Upgrade, Reclaim and the log's damage. Everything Badger
//     needs besides is in this package; docs/design.md says why.
//   - Batch, Writer: bulk writes. A batch is not atomic.
//   - Pack file: where a Badger store keeps values of 256 bytes or more
//     written through a batch. The LSM tree holds a pointer to them.
//   - Overlay log: turnback-overlay.log. A deferred store commits a short
//     command's records there as one frame, and a later writer folds them
//     into Badger.
//   - Reserve: free disk space a writable store keeps for Badger.
//   - LiveSet: content reachable from live snapshots, for garbage
//     collection.
//
// # Invariants
//
//   - Every read is verified against its address. Damage is an error
//     wrapping ErrCorrupt, never wrong bytes.
//   - A streamed read is good only once Read returned io.EOF.
//   - Identical content is stored once. The chunking never changes:
//     testdata/chunks.golden pins it.
//   - A pointer enters Badger only after its pack is synced.
//   - Records that name blobs are written after Writer.Flush returned
//     nil. A crash leaves only unreferenced blobs.
//   - Badger never finds the disk full. Writes into the reserve fail with
//     a *NoSpaceError matching ErrNoSpace.
//   - A damaged or missing MANIFEST is ErrDamaged. Badger is never left
//     to delete tables. Repair moves the damaged database aside whole.
//   - A read-only store writes nothing to its directory.
//   - An overlay frame is all or nothing. A torn end is dropped. Any
//     other damage costs its frame only: reads skip it and report it,
//     writers refuse, and a salvage keeps the damaged log aside.
//   - The overlay log is folded after 32 frames, 10 minutes or 1 MiB.
//   - After Reserve, a commit of the size reserved appends into blocks
//     the log already has: it needs no free space.
//   - A write-mode Close merges level 0 once it would hold two tables,
//     if the merge reads at most 16 MB (level0.go).
//
// # Errors
//
// ErrNotFound, ErrClosed, ErrBusy (another process holds the store),
// ErrCorrupt, ErrDamaged, ErrNoSpace, ErrReadOnly, ErrNoStore and
// ErrScratchFull. A cancelled context fails a call with its error.
package cas
