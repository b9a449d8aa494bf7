// Package cas is turnback's content-addressed store: file content (blobs)
// kept under its BLAKE3-256 hash in an ordered key/value Backend, usually
// a Badger database.
//
// # Addresses
//
// The address of content is BLAKE3-256 of its bytes (Sum, a Hash), shown
// to people as 12 hex digits (Hash.Short). The address does not depend on
// how the content is stored: a file kept as one blob and the same bytes
// kept as chunks have the same address. Identical content is stored once,
// whoever writes it.
//
// # Keys
//
// The package writes two kinds of records; callers keep their own records
// (trees, snapshots, sessions, the stat cache) under other prefixes of the
// same Backend:
//
//	b/<32-byte hash>  blob: one codec byte, then the payload
//	x/<32-byte hash>  chunk list of a large file: a version byte (1), then
//	                  per chunk its 32-byte hash and its size as a uvarint
//	r/<32-byte hash>  reference record of content the store does not hold
//	                  (a file over the size limit): where it sits, opaque
//	                  here (package cas/ref encodes it; refs.go)
//	o/folded          the id of the last overlay log folded into Badger
//	                  (see The overlay log)
//
// BlobKey and IndexKey build these keys. On Badger, a record of 256 bytes or
// more lives in a pack file and the key holds a pointer to it (see Pack
// files); the Backend hides this.
//
// # Codec
//
// The codec byte of a blob is 0 (raw: the payload is the content) or 1
// (zstd: one zstd frame, written at the fastest level with a 1 MiB window
// and no checksum, since the hash checks the content anyway). Content is
// stored zstd-compressed only when that saves at least 1/32 of its size,
// so already-compressed and random data (media, archives, binaries) cost
// no decompression on read. Content shorter than 64 bytes is never worth
// a frame header and is stored raw, and so is content over 4 MiB (the
// decoder's memory limit, which bounds what a damaged record can make it
// allocate; only PutBlob can store such content). The empty content is
// never stored: EmptyHash is always present, GetBlob and Open return it
// without touching the backend.
//
// # Chunks
//
// Writer.PutFile stores content of up to SmallFileMax bytes as one blob,
// and splits larger content into content-defined chunks plus a chunk
// list. Boundaries come from a gear rolling hash (as in FastCDC) over the
// last 64 bytes: no cut before MinChunk (128 KiB), a cut where the top 17
// bits of the hash are zero (so about AvgChunk, 256 KiB, on average), and
// a forced cut at MaxChunk (768 KiB). A boundary depends only on the
// bytes near it, so an edit inside a large file changes only the chunks
// around it: the rest dedups against what the store already holds. For
// the same reason the chunking (gear table, mask, limits) can never
// change without losing dedup against existing stores; a golden test
// (testdata/chunks.golden) pins it.
//
// # Pack files
//
// Chunks and blobs are values under b/ keys like any other, but a Badger
// store keeps every value of at least 256 bytes written through a Batch out
// of its LSM tree, in pack files beside the database (NNNNNNNN.pack):
// the LSM holds, under the value's key, a pointer to it (pack id,
// offset, length, CRC-32C), marked by the entry's user meta byte. Get
// and Scan follow the pointer and check the CRC, so callers see the
// value itself. Smaller values, and values written with Set or Update,
// stay in the LSM as before; stores written before pack files existed
// hold every value there and read as they always did. (A turnback from
// before pack files reads a pointer as the record itself and fails with
// an error, "unknown codec 254" for a blob, never with wrong bytes.)
//
// In the LSM tree, every value would be copied again by each compaction
// that passes it down a level (on a cold capture of a 1 GB tree, most of
// the time went there) and read through mmapped tables, which count in
// the process's resident memory. A pack is written once, with write(2),
// and read with pread(2). A pack that reaches its size limit is synced
// and, on Linux, its pages are dropped from the page cache
// (posix_fadvise DONTNEED): a capture does not read back what it wrote,
// and on a tree about the size of memory (a cold capture of 1M files,
// 12 GB) the kernel otherwise reclaimed those pages, and the work tree's
// files that the capture still had to read, at the capture's expense.
//
// A pack file is a header ("turnback pack 1\n") and the values back to
// back. Packs are only appended to: a process appends to the newest pack
// while it is under 32 MiB, otherwise starts a new one, and closes a
// pack once it reaches 64 MiB. Bytes a killed process left at the end of
// a pack are garbage that no pointer names.
//
// Durability: a pointer enters Badger only once its pack is fsynced (a
// pack that reaches its size limit is synced then, by the writer whose
// value filled it, outside the pack lock, so that other writers go on
// into the next pack meanwhile; Batch.Flush syncs the current pack, and
// waits for those syncs, before writing the pointers it holds), so a
// committed pointer never names bytes a crash can lose. If writing or syncing a
// pack fails (or the space guard refuses a write, or a batch with values
// not yet synced is cancelled), the pack is abandoned: every batch
// holding a pointer into it fails, and the next value starts a new pack.
// An abandoned pack this process created and never synced is removed; an
// older one is truncated back to the size it had at its last sync (no
// committed pointer names bytes past it), so a failed capture leaves
// neither empty packs nor garbage on a disk that needs the space.
//
// Space: deleting a key only drops its pointer. Badger.Reclaim deletes
// packs that no pointer names, and copies the live values of packs less
// than half live to a new pack (synced before the pointers are switched
// to it, in transactions that switch a pointer only if it still names
// the old place), then deletes the old packs once the switch is synced.
// A crash part way leaves every pointer naming durable data, and packs
// nothing names, which the next Reclaim deletes.
//
// Values that do stay in the LSM are below Badger's value threshold of
// 1 MiB (only Set and Update could write larger ones, which would go to
// Badger's value log, whose garbage collection rarely frees anything).
//
// # Verification
//
// Every read is verified (the "verified" invariant of package turnback:
// damaged data is an error, never wrong bytes on disk): GetBlob decodes the
// record and checks the result against its address, and Open checks every
// chunk the same way, its size against the chunk list, and at the end the
// whole content against the file's address. A mismatch, an undecodable
// record or an unknown codec is an error wrapping ErrCorrupt, never wrong
// bytes passed off as good; a missing blob or chunk is an error wrapping
// ErrNotFound. Verify reads content completely without returning it.
//
// One limit comes with streaming: a damaged chunk list that names other,
// intact chunks is only detected when the whole content has been hashed,
// so bytes returned before that final error can be wrong. A reader of
// Open's content must treat it as good only once Read has returned
// io.EOF; a restore writes it to a staging file and commits only then.
//
// # Backends
//
// Backend is a small ordered key/value interface: Get, Has, Set and
// Delete (each atomic), Scan in key order over a prefix, NewBatch for bulk
// writes, Sync and Close. Errors callers branch on are ErrNotFound (Get of
// an absent key) and ErrClosed (use after Close); a cancelled context
// fails the call with the context's error. Two implementations pass the
// same conformance suite (testBackend in backend_test.go):
//
//   - Badger (OpenBadger), the durable store: one Badger database per work
//     tree, with its large values in pack files (see above).
//   - Memory (NewMemory), for tests and embedders that want no disk.
//
// A Batch is not atomic (see below). Put may be called from many
// goroutines, and may keep its key and value slices until Flush, so they
// must not be modified before that. Flush or Cancel ends a batch; the
// same holds for a Writer. Always end one (defer Cancel right after
// NewWriter; Cancel after Flush is harmless): an open Badger batch holds
// a read transaction, which keeps compaction from dropping deleted data.
//
// # Badger for a short-lived CLI
//
// Badger's defaults suit a long-running server. A turnback command opens
// the store, works for a moment and closes it, so OpenBadger shrinks
// everything that costs memory or time at open and close: two 8 MiB
// memtables, 4 MiB tables at every level, a small level 0 and two compactors, no
// block cache and a 16 MiB index cache, 64 MiB value log files, no
// compression of its own (blobs are already zstd), no conflict detection
// (there is one writer), no metrics, a silent logger, and no sync on every
// write: Writer.Flush calls Sync once where it matters. The value
// threshold stays at its 1 MiB maximum (see Pack files). Badger v4.9.4 or
// later is required: earlier releases could resurrect deleted keys.
//
// # The lock and ErrBusy
//
// Badger admits one process per database: it takes flock(2) on the
// directory, which the kernel releases when the process dies, so there are
// no stale locks. When another process holds the store, OpenBadger retries
// with a jittered pause until BadgerOptions.LockWait has passed (calling
// OnWait once when it starts waiting), then fails with an error wrapping
// ErrBusy that names the holder. A pause ends early once the holder lets
// go: meanwhile a goroutine tries Badger's lock itself every 2 ms, every
// 10 ms after the first second (lockFreed: flock without blocking, given
// back at once), so a waiter takes the store as its holder exits, not up
// to a pause later. The holder is known from the HOLDER note each
// process writes beside the database after opening it (its Holder
// description, pid and start time) and removes on Close; after a crash the
// note can be stale, but it only decorates the message. Badger's lock
// failure can only be recognised by its text ("Cannot acquire directory
// lock"): Badger formats the errno with %+v rather than wrapping it, so
// errors.Is cannot see it.
//
// # Failure behaviour
//
// Writes go in bulk through a Writer, over a Batch, and a batch is not
// atomic: Badger splits a large one into several transactions and commits
// them in the background, so after a crash any subset of its entries may
// be present, including a chunk list without some of its chunks. Hence:
//
//   - Call Writer.Flush (it flushes the batch and syncs the backend) and
//     check its error before writing any record that refers to the blobs
//     (tree, snapshot, session), and write those records last. A crash
//     then leaves only unreferenced blobs, which gc removes.
//   - HasContent says a record exists; it does not prove every chunk of a
//     chunked file does. Verify does.
//   - Dedup checks what is already committed: content put twice into one
//     Writer before Flush may be written (and counted) twice on Badger.
//     That wastes work, never correctness. A Writer into a store that
//     holds no blob when it first writes (a work tree's first capture)
//     does not look up blobs whose address prefix it has not written
//     before: there they can only be new (see freshStore in fresh.go).
//
// # Opening: damaged metadata
//
// Badger keeps its list of tables in db/MANIFEST. Given a directory whose
// MANIFEST is missing, Badger creates an empty one; given one cut short,
// it keeps what it could read; then it deletes every table file the
// MANIFEST does not list: all of a store's history, silently. So
// OpenBadger first runs precheck (precheck.go), which reads the MANIFEST
// itself (magic, then records of length, CRC-32C and change set) and
// refuses with ErrDamaged, naming the file, when data files exist without
// it, when it does not parse, when a table it lists is missing, or when a
// table on disk is not listed, unless that table is provably garbage
// (deleted in the MANIFEST, or newer than every table it names with the
// MANIFEST whole: a compaction's output that a crash kept from being
// recorded, which Badger then removes).
//
// Repair (repair.go) rebuilds such a store without deleting anything: the
// damaged directory is renamed, whole, to damaged-<UTC time>/ beside it; a
// new database gets the newest version of every record its table files
// (read through Badger's table package, read-only) and memtable logs
// (replayed from copies in a scratch database) still hold, and hard links
// to its pack files. Unreadable tables are reported, not fatal.
//
// # Full disks
//
// Badger writes its memtables, tables and value log through mmapped
// files that it sizes with ftruncate: their pages get disk blocks only
// when first written, and when the disk is full that write is a SIGBUS
// that kills the process. So Badger must never be the one to find the
// disk full. A store opened for writing keeps a reserve free (space.go:
// 64 MiB plus a quarter of its tables' size, at most 1 GiB): OpenBadger
// refuses to open with less than that free, and every write turnback
// makes (a pack value, a batch entry, Set, Update) first checks that it
// leaves the reserve free (statfs again every 4 MiB written, and whenever
// a write would dip into it). Both fail with a *NoSpaceError ("no space
// left on <device> (store <dir>): free N MB or move the store"), which
// errors.Is matches to ErrNoSpace and syscall.ENOSPC; so does an ENOSPC
// from a pack write. Write errors of packs never surface as a
// *fs.PathError, which a capture would take for a file it could not read.
// Badger's own writes (its memtable files of 2 x 8 MiB, the level-0 table
// a memtable is flushed to, compactions) come out of the reserve.
//
// # Read-only
//
// BadgerOptions.ReadOnly opens an existing database in Badger's
// read-only mode: a shared lock, no memtable, no compaction, nothing
// written to the directory (no HOLDER note). It works on a full disk and
// on a store the process may not write. Batches (blobs, trees, the stat
// cache of a capture) then go to an in-memory scratch layer that reads
// see first (scratch.go) and that is lost at Close (up to 1 GiB, then
// ErrScratchFull rather than unbounded memory); records (Set, Update,
// Delete) fail with ErrReadOnly, so that nothing meant to last is lost
// silently. A directory without a database is ErrNoStore; OpenBadgerEmpty
// gives an empty read-only store with no directory at all (Badger's
// in-memory mode). When a killed process left a memtable that Badger
// replays only in write mode (a torn end to truncate, an empty file to
// size), a read-only open lets a write-mode open recover it first.
//
// # The overlay log
//
// Badger's write-mode open and close cost a short command more than its
// work: the open creates and maps a fresh memtable file and value log
// file (on a disk with a large read-ahead, the first write into each
// faults in megabytes of zeroes), the close flushes the memtable into a
// new level-0 table and syncs it; about 18 ms against 3 ms for a
// read-only open and close. BadgerOptions.Deferred (what the root
// package uses for every writer but the daemon, gc and restores) opens an
// existing database "deferred":
//
//   - It takes the lock a write-mode open takes (flock(2) on the
//     directory, exclusive; lockDir), waiting for another holder as
//     OpenBadger does, then opens Badger read-only with Badger's own lock
//     bypassed. To every other process the store is held for writing.
//   - Writes (Set, Update, Delete, batches) go to memory: a layer of
//     uncommitted writes over a layer of committed ones over the
//     database; reads look in that order. A batch's values of 256 bytes
//     or more go to pack files at once, as in a write-mode store, and
//     only their pointers to memory, once Flush has synced the packs.
//   - Sync (and Close) commits the uncommitted layer as one frame
//     appended to turnback-overlay.log in the database directory, then
//     fsync(2) (and, when it created the file, a sync of the directory).
//     The file starts with "TBOVL02\n" and a random 16-byte id. A frame
//     is its body's length, the length's complement and the body's
//     CRC-32C (little-endian uint32s), then the body: a count, then per
//     record a kind byte (0 a record written, 1 deleted, 2 a value
//     written through a batch, 3 a batch's pointer into a pack file),
//     the key and, for a write, the value, each with a uvarint length. The records of a frame are the final
//     state of each key the command changed, so a frame is all or
//     nothing: committed once its sync returned. Writer.Flush leaves its
//     blobs to that commit, so they share a frame with the records that
//     name them.
//   - Past deferMax (256 KiB) of uncommitted writes, when the log would
//     pass overlayMax (512 KiB), when it holds overlayMaxFrames (32)
//     frames or its first frame is older than overlayMaxAge (10 minutes),
//     the store opens Badger for writing under the lock it holds (Upgrade
//     does so on demand): it commits the uncommitted writes as one more
//     frame, so that the log holds every record not yet in Badger, then
//     folds the log. The read-only database stays open until Close for
//     reads under way. The log's id starts with its creation time (Unix
//     nanoseconds), which tells its age; a log whose age makes no sense
//     (an earlier turnback's random id) is folded at the next commit.
//   - Folding writes the log's records into Badger (what came through a
//     batch as a batch would, to a pack file when large; records in the
//     LSM tree, as Set would), syncs, records the log's id under
//     o/folded, syncs, and removes the log. A crash before the id is
//     durable folds the same log again, nothing having been written
//     since; a log whose removal a crash undid (or that could not be
//     removed) has its id recorded, and no open reads or folds it again.
//   - Every other open reads the log: a read-only open into its scratch
//     layer, a write-mode open folds it before anything else.
//
// Failure behaviour: a frame cut short by the end of the file (header or
// body), a damaged frame header followed by zeroes only, or a last frame
// failing its checksum whose bytes are zeroes from a sector boundary to
// the end of the file (a file size a crash extended past its data) is the
// torn end of an append a crash interrupted: not committed, ignored by
// readers and cut off by the next deferred writer before it appends.
// Anything else that does not check out is damage (overlay_damage.go): a
// frame whose length is whole but whose checksum fails (the last one
// too), a frame header whose length disagrees with its complement with
// data after it, a frame that does not decode, a bad magic. Damage costs
// the damaged frame only: readers skip it (after a damaged header, up to
// the next offset where a whole frame checks out) and read every frame
// after it. A read-only open then shows what checks out and reports the
// damage (Badger.LogDamage, a *LogDamageError naming the file and byte
// offset, wrapping ErrDamaged); a deferred or write-mode open refuses
// with it, so that nothing is appended to or folded from a damaged log;
// an open with BadgerOptions.Salvage (turnback verify --repair, recover)
// links the log to turnback-overlay.log.damaged-<time> beside it, folds
// every frame that checks out and removes the log (Badger.Salvaged).
// Nothing is dropped silently, and the damaged bytes are never deleted.
// Writes after Close fail with ErrClosed. An append that fails (EIO,
// ENOSPC, at the write or the sync) is an error; the file is cut back to
// its previous length, the uncommitted writes are dropped (reads no longer
// see them), and the next commit may succeed; if the cut fails too, the
// store commits nothing more. Where turnback cannot take Badger's lock
// itself (Windows), Deferred is an ordinary write-mode open.
//
// # Fault injection
//
// Every create, write and sync of a pack file, and sync of its directory,
// goes through the small seam of faults.go; SetFaults installs a hook that
// can fail any of them (or cut a write short). The fault-injection tests
// (faults_test.go here, fault_test.go in the root package for a capture,
// an undo and a gc) fail each such operation in turn with EIO, ENOSPC and
// a short write, and check that the operation fails whole, with a clear
// error, committing nothing that names missing bytes, leaving no empty
// pack, and that the store works again at once. TestHostileStore feeds
// crafted records (truncated, oversized, wrong hashes, bad pointers,
// self-referencing chunk lists): ErrCorrupt or ErrNotFound, never a panic
// or wrong bytes. A pointer larger than its pack file is refused before
// the read allocates.
//
// # Garbage collection
//
// Collection is mark and sweep: Store.MarkContent adds content reachable
// from live snapshots (a blob, or a chunk list and its chunks) to a
// LiveSet, Store.Sweep deletes every blob and chunk list not in it
// (Store.SweepRefs likewise the reference records), and
// Badger.Reclaim makes Badger give the space back (deleted keys alone free
// nothing): it rewrites or deletes mostly dead pack files and compacts
// the LSM tree. No Writer may be in flight meanwhile: blobs written after the
// mark, whose records are not yet written, would be swept.
package cas
