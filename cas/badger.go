package cas

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/dgraph-io/badger/v4"
	"github.com/dgraph-io/badger/v4/options"
	"github.com/turnback/turnback/internal/testhook"
)

// BadgerOptions tune OpenBadger.
type BadgerOptions struct {
	// LockWait bounds how long Open waits for another process to release
	// the store. Zero means do not wait.
	LockWait time.Duration
	// Holder describes this process in the holder note that a waiting
	// process shows (for example "turnback snap").
	Holder string
	// OnWait, if set, is called once when Open starts waiting, with the
	// description of the current holder.
	OnWait func(holder string)
	// ReadOnly opens an existing database without writing anything to
	// its directory (Badger's read-only mode: a shared lock, no memtable,
	// no compaction), so that it works on a full disk and on a store the
	// process may not write. Writes then go to memory only and are lost
	// at Close (see scratch.go). A directory without a database is
	// ErrNoStore.
	ReadOnly bool
	// Name is how messages name the store (default: dir).
	Name string
	// StopWaiting, if set, is asked before each pause while another
	// process holds the store: true ends the wait at once with ErrBusy
	// (the CLI: a watch daemon holds it and answers on its socket now).
	StopWaiting func() bool
	// Deferred opens an existing database for writing lazily: under the
	// same exclusive lock, but read-only, with writes kept in memory
	// until Sync or Close commits them to the overlay log, or opens
	// Badger for writing when they are many (see "The overlay log" in
	// doc.go). A store that writes little never pays Badger's write-mode
	// open and close. Ignored where the directory lock cannot be taken
	// by turnback itself (Windows) and for a new database.
	Deferred bool
	// Salvage: an open for writing (deferred too) that finds the
	// overlay log damaged folds every frame that checks out into the
	// database and keeps the log aside, instead of refusing with a
	// *LogDamageError (Badger.Salvaged says what it did).
	Salvage bool
}

// shortPauses: OpenBadger first waits 2, 4, 8, 16 ms for a holder.
const shortPauses = 4

// holderFile names the note saying who holds the database. It lives in
// holderDir, a directory of its own inside the database's: creating and
// removing it there leaves the database's directory unchanged, whose
// fsyncs (Badger's at every open and close, even read-only) then find
// nothing to commit. Turnback before 2026-11 kept it beside the
// database; readHolder reads that note too.
const (
	holderDir  = "turnback-holder"
	holderFile = "HOLDER"
)

// holderPath is the holder note of the database in dir.
func holderPath(dir string) string { return filepath.Join(dir, holderDir, holderFile) }

// valueThreshold: values this large or larger would live in Badger's
// value log; turnback puts them in pack files instead (setEntries), and
// the rest stays inline in the LSM tree.
const valueThreshold = 1 << 20

// valueLogFileSize is Badger's least. The value log is never written
// (valueThreshold), yet every write-mode open creates a log file of
// twice this size. Its first write faults in the disk's readahead
// window, up to the file's size: with 8 MiB of readahead, 1.6 ms for
// 64 MiB files and 0.4 ms for these. Badger refuses values longer than
// this, so none may reach it (setEntries). Older stores' files are read
// at their own size.
const valueLogFileSize = 1 << 20

// Badger is the durable Backend: one Badger database per store.
type Badger struct {
	dir      string
	packs    *packs      // large values written through batches
	dead     bool        // closed by a Reclaim that could not reopen
	space    *spaceGuard // read-write: keeps Badger's reserve free (see space.go)
	readOnly bool        // opened read-only: writes kept in memory, lost at Close

	// swap guards db, scratch and def, which change when a deferred
	// store opens Badger for writing (deferred.go).
	swap    sync.RWMutex
	db      *badger.DB
	scratch *scratch   // read-only or deferred: writes (and the overlay log) in memory (see scratch.go)
	def     *deferred  // deferred: the overlay log and what is not yet committed
	ro      *badger.DB // a deferred store's read-only database once it opened for writing; closed at Close
	lock    *os.File   // the directory lock this process took itself (any writer where flock exists), released at Close
	closed  bool       // Close ran: every method fails with ErrClosed

	logDamage *LogDamageError // read-only: what is damaged in the overlay log read
	salvaged  *LogSalvage     // Salvage: the damaged overlay log folded and kept aside
}

// state returns the database and scratch reads go to (ErrClosed after
// Close).
func (b *Badger) state() (*badger.DB, *scratch, error) {
	b.swap.RLock()
	defer b.swap.RUnlock()
	if b.closed {
		return nil, nil, ErrClosed
	}
	return b.db, b.scratch, nil
}

// tableSize is the size of Badger's tables: 4 MiB, unless a test set
// testhook.BadgerTableSize.
func tableSize() int64 {
	if n := testhook.BadgerTableSize; n > 0 {
		return n
	}
	return 4 << 20
}

// badgerOptions returns Badger options for a short-lived CLI process:
// small memtables and caches, no compression of its own (values are
// already zstd), values below 1 MiB kept in the LSM tree rather than the
// value log (large ones written in bulk go to pack files, see pack.go),
// and a silent logger.
func badgerOptions(dir string) badger.Options {
	o := badger.DefaultOptions(dir)
	// Tables of every level at the base size: a compaction's table
	// builders allocate twice the table size each, and several run at
	// once; with the default doubling per level they took 80 MB of a
	// cold capture of a million files.
	o.TableSizeMultiplier = 1
	return o.
		WithLogger(nil).
		WithMemTableSize(8 << 20).
		WithNumMemtables(2).
		WithNumLevelZeroTables(4).
		WithNumLevelZeroTablesStall(10).
		WithBaseTableSize(tableSize()).
		WithNumCompactors(2).
		WithCompression(options.None).
		WithBlockCacheSize(0).
		// No index cache: without encryption Badger reads a table's
		// index from its mapped file and never uses the cache, whose
		// making cost 400 kB of fresh heap a command.
		WithIndexCacheSize(0).
		WithValueLogFileSize(valueLogFileSize).
		WithValueThreshold(valueThreshold).
		WithDetectConflicts(false).
		WithMetricsEnabled(false).
		WithSyncWrites(false)
}

// OpenBadger opens (creating if needed, mode 0700) the Badger store in dir.
// If another process holds it, OpenBadger retries until o.LockWait has
// passed and then returns an error wrapping ErrBusy that names the holder.
//
// Before Badger runs, OpenBadger checks that it would not delete anything
// (see precheck: a missing or damaged MANIFEST is ErrDamaged) and, unless
// read-only, that the disk has room for Badger's files (see space.go: a
// full disk is a *NoSpaceError, never a crash inside Badger).
func OpenBadger(ctx context.Context, dir string, o BadgerOptions) (*Badger, error) {
	if o.ReadOnly {
		if _, err := os.Stat(filepath.Join(dir, manifestName)); err != nil {
			if errors.Is(err, os.ErrNotExist) {
				if perr := precheck(dir); perr != nil {
					return nil, perr
				}
				return nil, fmt.Errorf("%w: %s", ErrNoStore, dir)
			}
			return nil, fmt.Errorf("cas: open store %s: %w", dir, err)
		}
	} else if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("cas: create store %s: %w", dir, wrapNoSpaceNamed(dir, o.Name, err))
	}
	if o.ReadOnly || !canLockDir {
		if err := precheckSettled(dir); err != nil {
			return nil, err
		}
	}
	// A writer that takes the directory lock itself checks under it
	// (tryOpen, tryDeferred): its holder may be adding a table.
	if o.ReadOnly {
		b, err := openBadger(ctx, dir, o)
		if err != nil && needsRecovery(err) {
			// A process killed mid-write leaves a memtable that Badger
			// replays only in write mode (it truncates the torn end, or
			// sizes an empty file). Let a write-mode open recover it, as
			// the next command after any crash does; this is the one
			// write a reading command can make, and it fails, with
			// Badger's error, on a store that cannot be written.
			o2 := o
			o2.ReadOnly = false
			w, werr := openBadger(ctx, dir, o2)
			var ns *NoSpaceError
			if errors.As(werr, &ns) {
				return nil, werr // the repair needs space: say how much
			}
			if werr != nil {
				return nil, err
			}
			if werr := w.Close(); werr != nil {
				return nil, werr
			}
			b, err = openBadger(ctx, dir, o)
		}
		return b, err
	}
	return openBadger(ctx, dir, o)
}

// DB exposes the underlying database for maintenance (gc, flatten); a
// deferred store is opened for writing first (see Upgrade).
func (b *Badger) DB() *badger.DB {
	_ = b.Upgrade() // on failure the read-only database is returned: its writes fail
	b.swap.RLock()
	defer b.swap.RUnlock()
	return b.db
}

// Dir returns the directory of the store.
func (b *Badger) Dir() string { return b.dir }

// Sync implements Backend.
func (b *Badger) Sync() error {
	b.swap.Lock()
	if b.db.IsClosed() {
		b.swap.Unlock()
		return ErrClosed // badger's Sync dereferences freed state after Close
	}
	if b.def != nil {
		err := b.persistLocked()
		b.swap.Unlock()
		return err
	}
	b.swap.Unlock()
	if b.readOnly {
		return nil
	}
	if err := b.db.Sync(); err != nil {
		return b.wrap("sync", err)
	}
	return nil
}

// Close implements Backend.
//
// A deferred store commits what it has not yet (see Sync) before it
// closes; a failure to is returned, and those writes are lost.
func (b *Badger) Close() error {
	b.swap.Lock()
	defer b.swap.Unlock()
	if b.closed {
		return nil
	}
	b.closed = true
	if b.dead {
		b.releaseLock()
		return nil // a failed Reclaim already closed it
	}
	var derr error
	if b.def != nil && !b.db.IsClosed() {
		derr = b.persistLocked()
	}
	if !b.readOnly {
		_ = os.Remove(holderPath(b.dir))
	}
	perr := b.packs.close()
	if b.ro != nil {
		_ = b.ro.Close()
		b.ro = nil
	}
	if b.def != nil {
		b.def.log.close()
	}
	if !b.readOnly && b.def == nil {
		lastRead(b.db)
		b.guardClose() // the flush at Close must not find the disk full
	}
	err := b.db.Close()
	b.releaseLock()
	if err != nil {
		return b.wrap("close", err)
	}
	if derr != nil {
		return derr
	}
	return perr
}

// releaseLock gives back the directory lock this process took itself.
func (b *Badger) releaseLock() {
	if b.lock != nil {
		_ = b.lock.Close()
		b.lock = nil
	}
}

// viewEach calls fn with every item of db that an iterator with opt
// yields (one version of each key or all, values prefetched or not), in
// key order, in one read transaction, checking ctx before each. An error
// from fn or ctx stops it and is returned as is.
func viewEach(ctx context.Context, db *badger.DB, opt badger.IteratorOptions, fn func(*badger.Item) error) error {
	return db.View(func(txn *badger.Txn) error {
		it := txn.NewIterator(opt)
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			if err := ctx.Err(); err != nil {
				return err
			}
			if err := fn(it.Item()); err != nil {
				return err
			}
		}
		return nil
	})
}
