package cas

// A store opened for writing with BadgerOptions.Deferred: Badger is
// opened read-only under the write lock, writes are kept in memory, and
// Sync commits them to the overlay log, or opens Badger for writing when
// they are too many (see "The overlay log" in doc.go).

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"sync"

	"github.com/dgraph-io/badger/v4"
)

// deferred is the state of a store whose writes go to the overlay log.
// Reads see, in order: the uncommitted writes (the Badger's scratch, a
// layer over committed), the committed ones (the log's records, read at
// open, and the frames this process appended), the database.
type deferred struct {
	log       overlayFile
	committed *scratch

	mu         sync.Mutex
	dirtyBytes int64 // written to the uncommitted layer
	failed     error // a failed append could not be undone: nothing more is committed
}

// openDeferred opens the database in dir for a deferred writer that
// holds lock, the directory lock it took itself: read-only, with the
// overlay log read in. ok is false when the read-only open failed in a
// way a write-mode open repairs (the caller then opens for writing).
func openDeferred(dir string, lock *os.File, guard *spaceGuard, holder string, salvage bool) (*Badger, bool, error) {
	opts := badgerOptions(dir)
	opts.ReadOnly, opts.BypassLockGuard = true, true
	db, err := badger.Open(opts)
	if err != nil {
		if needsRecovery(err) {
			return nil, false, nil
		}
		return nil, false, fmt.Errorf("cas: open store %s: %w", dir, err)
	}
	s := newScratch()
	r, err := readOverlay(dir, s, folded(db))
	if errors.Is(err, errFolded) {
		// A log folded already, whose removal a crash undid: remove it
		// (or, failing that, leave it to a write-mode open, which never
		// appends to it).
		if removeOverlay(dir) != nil {
			db.Close()
			return nil, false, nil
		}
		r, err = overlayRead{}, nil
	}
	if asLogDamage(err) != nil && salvage {
		db.Close()
		return nil, false, nil // a write-mode open salvages it
	}
	if err != nil {
		db.Close()
		return nil, false, err
	}
	d := &deferred{log: overlayFile{dir: dir, size: r.valid, id: r.id, frames: r.frames}, committed: s}
	if r.size > r.valid {
		// The torn end of an append a crash interrupted: cut it, so the
		// next frame follows the last committed one.
		if err := d.log.cut(r.valid); err != nil {
			db.Close()
			return nil, false, err
		}
	}
	b := &Badger{db: db, dir: dir, packs: newPacks(dir), def: d, lock: lock, space: guard}
	b.packs.space = guard // a batch's large values go to packs at once
	s.unpack = b.unpack
	b.scratch = newLayer(s)
	b.writeHolder(holder)
	return b, true, nil
}

// deferWrite keeps a write of a deferred store in memory (it is
// committed by the next Sync); ok is false when the store is not
// deferred (any more), and the caller writes to Badger. A write that
// makes the uncommitted part larger than deferMax opens Badger for
// writing at once.
func (b *Badger) deferWrite(entries []Entry, deletes [][]byte, packed bool) (ok bool, err error) {
	size := int64(0)
	for _, k := range deletes {
		size += int64(len(k))
	}
	for _, e := range entries {
		size += int64(len(e.Key) + len(e.Value))
	}
	return b.deferKeep(func(s *scratch) { s.update(entries, deletes, packed) }, size)
}

// deferPointers keeps pointers into durable packs (written by a
// deferBatch) in memory, as deferWrite keeps values; ok is false when
// the store is not deferred any more.
func (b *Badger) deferPointers(entries []Entry) (ok bool, err error) {
	size := int64(0)
	for _, e := range entries {
		size += int64(len(e.Key) + len(e.Value))
	}
	return b.deferKeep(func(s *scratch) { s.updatePtrs(entries) }, size)
}

// deferKeep runs write on a deferred store's uncommitted layer, which
// grows by size bytes, and opens Badger for writing once that layer
// holds more than deferMax; ok is false when the store is not deferred
// (any more).
func (b *Badger) deferKeep(write func(*scratch), size int64) (ok bool, err error) {
	b.swap.RLock()
	if b.closed {
		b.swap.RUnlock()
		return true, ErrClosed
	}
	d := b.def
	if d == nil {
		b.swap.RUnlock()
		return false, nil
	}
	d.mu.Lock()
	if d.failed != nil {
		err = d.failed
	} else {
		write(b.scratch)
		d.dirtyBytes += size
	}
	over := d.dirtyBytes > deferMax
	d.mu.Unlock()
	b.swap.RUnlock()
	if err != nil || !over {
		return true, err
	}
	b.swap.Lock()
	defer b.swap.Unlock()
	if b.def == nil {
		return true, nil
	}
	return true, b.upgradeLocked()
}

// commitsLater reports whether b is deferred: what is written now is
// committed by the next Sync or Close, as one frame (Writer.Flush then
// leaves it to that).
func (b *Badger) commitsLater() bool {
	b.swap.RLock()
	defer b.swap.RUnlock()
	return b.def != nil
}

// Upgrade opens a deferred store's database for writing now (folding the
// overlay log into it): for work that runs long or writes much, such as
// a watch daemon or gc. On any other store it does nothing.
func (b *Badger) Upgrade() error {
	b.swap.Lock()
	defer b.swap.Unlock()
	if b.def == nil {
		return nil
	}
	return b.upgradeLocked()
}

// persistLocked commits the uncommitted writes of a deferred store: as
// one frame of the overlay log when small enough, by opening Badger for
// writing otherwise. If that fails, they are dropped (reads no longer see
// them): the caller's operation failed, and records nothing. Caller
// holds swap for writing.
func (b *Badger) persistLocked() error {
	d := b.def
	d.mu.Lock()
	failed, big := d.failed, d.dirtyBytes > deferMax
	d.mu.Unlock()
	if failed != nil {
		return failed
	}
	ops := b.scratch.ops()
	if len(ops) == 0 {
		return nil
	}
	sort.Slice(ops, func(i, j int) bool { return string(ops[i].key) < string(ops[j].key) })
	frame := encodeFrame(ops)
	// A frame that fits the blocks reserved for it (reserve.go) is
	// appended there whatever else holds: the caller's files may have
	// changed already, and opening Badger could find the disk full.
	reserved := int64(len(frame)) <= d.log.room()-d.log.headerLen()
	if !reserved && (big || d.log.size+int64(len(overlayMagic)+len(frame)) > overlayMax || d.log.due()) {
		return b.upgradeLocked()
	}
	var err error
	if !reserved {
		err = b.space.check(int64(len(frame)))
	}
	if err == nil {
		if err = d.log.append(frame); err != nil {
			err = wrapNoSpaceNamed(b.dir, "", err)
		}
	}
	b.scratch = newLayer(d.committed)
	d.mu.Lock()
	d.dirtyBytes = 0
	d.mu.Unlock()
	if err != nil {
		if d.log.broken {
			d.mu.Lock()
			d.failed = err
			d.mu.Unlock()
		}
		return err
	}
	d.committed.applyShared(ops) // the layer's own copies, never changed
	return nil
}

// newLayer returns an empty layer over s.
func newLayer(s *scratch) *scratch {
	l := newScratch()
	l.under, l.unpack = s, s.unpack
	return l
}

// upgradeLocked opens the database of a deferred store for writing
// (under the directory lock this process holds). First the uncommitted
// writes are committed as one more frame of the log, so that the log
// holds every record not yet in the database; then the log is folded
// into the database (foldLog), which the store uses from then on. The
// read-only database stays open until Close for reads already under
// way. On failure before the fold, the uncommitted writes are dropped,
// as by persistLocked. Caller holds swap for writing.
func (b *Badger) upgradeLocked() error {
	d := b.def
	d.mu.Lock()
	failed := d.failed
	d.mu.Unlock()
	if failed != nil {
		return failed
	}
	drop := func(err error) error {
		b.scratch = newLayer(d.committed)
		d.mu.Lock()
		d.dirtyBytes = 0
		d.mu.Unlock()
		return err
	}
	// Measured now: the fold writes the log's records into Badger's
	// memtable map, and the disk may have filled since the last measure.
	d.mu.Lock()
	dirty := d.dirtyBytes
	d.mu.Unlock()
	if err := b.space.fresh(d.log.size + 2*dirty); err != nil {
		return drop(err)
	}
	if ops := b.scratch.ops(); len(ops) > 0 {
		sort.Slice(ops, func(i, j int) bool { return string(ops[i].key) < string(ops[j].key) })
		frame := encodeFrame(ops)
		err := b.space.check(int64(len(frame)))
		if err == nil {
			err = d.log.append(frame)
		}
		if err != nil {
			if d.log.broken {
				d.mu.Lock()
				d.failed = err
				d.mu.Unlock()
			}
			return drop(wrapNoSpaceNamed(b.dir, "", err))
		}
		d.committed.applyShared(ops)
		b.scratch = newLayer(d.committed)
		d.mu.Lock()
		d.dirtyBytes = 0
		d.mu.Unlock()
	}
	opts := badgerOptions(b.dir)
	opts.BypassLockGuard = true
	opts.CompactL0OnClose = l0Merge(b.dir)
	db, err := badger.Open(opts)
	if err != nil && isTornMemtable(err) {
		db, err = badger.Open(opts)
	}
	if err != nil {
		return fmt.Errorf("cas: open store %s for writing: %w", b.dir, wrapNoSpaceNamed(b.dir, "", err))
	}
	if err := prepareMemtables(b.dir, ""); err != nil {
		db.Close() // nothing written: its memtable is empty
		return err
	}
	if d.log.id != nil {
		if err := foldLog(db, d.log.id, b.packs, b.space, d.committed); err != nil {
			db.Close()
			return wrapNoSpaceNamed(b.dir, "", err)
		}
	}
	d.log.close()
	b.ro, b.db, b.scratch, b.def = b.db, db, nil, nil
	// The log is folded, and its id recorded: if its removal fails, or
	// a crash undoes it, no open folds it again.
	_ = removeOverlay(b.dir)
	return nil
}

// foldLog writes the records s holds, a log's whole content, into db,
// syncs, then records the log's id (foldedKey) and syncs again: a crash
// before the id is durable folds the same log again (the same records,
// nothing having been written since), one after never does.
func foldLog(db *badger.DB, id []byte, p *packs, guard *spaceGuard, s *scratch) error {
	if err := foldScratch(db, p, guard, s); err != nil {
		return err
	}
	err := db.Update(func(txn *badger.Txn) error { return txn.Set(foldedKey, bytes.Clone(id)) })
	if err == nil {
		err = db.Sync()
	}
	if err != nil {
		return fmt.Errorf("cas: fold overlay log: %w", err)
	}
	return nil
}

// merge writes the records of layer s alone into m.
func (m *scratch) merge(s *scratch) { m.applyShared(s.ops()) }

// foldScratch writes every record of s (writes and deletes) into db and
// makes them durable.
func foldScratch(db *badger.DB, p *packs, guard *spaceGuard, s *scratch) error {
	s.mu.RLock()
	defer s.mu.RUnlock()
	w := &badgerBatch{db: db, packs: p, wb: db.NewWriteBatch(), space: guard}
	for k := range s.gone {
		if err := w.wb.Delete([]byte(k)); err != nil {
			w.Cancel()
			return fmt.Errorf("cas: fold overlay log: %w", err)
		}
	}
	keys := make([]string, 0, len(s.vals))
	for k := range s.vals {
		keys = append(keys, k)
	}
	sort.Strings(keys) // the same pack layout for the same records
	for _, k := range keys {
		var err error
		if s.ptrs[k] {
			// In a pack already (synced before its pointer was committed).
			err = w.wb.SetEntry(badger.NewEntry([]byte(k), s.vals[k]).WithMeta(metaPacked))
		} else if s.packed[k] {
			err = w.Put([]byte(k), s.vals[k]) // large ones to a pack, as a batch would
		} else {
			err = w.putRecord([]byte(k), s.vals[k]) // a record stays in the LSM tree, unless large
		}
		if err != nil {
			w.Cancel()
			return fmt.Errorf("cas: fold overlay log: %w", err)
		}
	}
	if err := w.Flush(); err != nil {
		return fmt.Errorf("cas: fold overlay log: %w", err)
	}
	if err := db.Sync(); err != nil {
		return fmt.Errorf("cas: fold overlay log: %w", err)
	}
	return nil
}

// foldOverlay folds the overlay log of the database in dir, if any, into
// db, just opened for writing, and removes the log. A log folded already
// (its id recorded) is only removed. A damaged log is refused, or with
// salvage, kept aside (keepAside) before every frame that checks out is
// folded, and reported.
func foldOverlay(db *badger.DB, dir string, p *packs, guard *spaceGuard, salvage bool) (*LogSalvage, error) {
	if _, err := os.Lstat(filepath.Join(dir, overlayName)); errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	s := newScratch()
	r, err := readOverlay(dir, s, folded(db))
	var out *LogSalvage
	if d := asLogDamage(err); d != nil && salvage {
		aside, kerr := keepAside(dir)
		if kerr != nil {
			return nil, kerr
		}
		out = &LogSalvage{Damage: d.what(), MovedTo: aside, Frames: d.Frames, Damaged: d.Damaged}
		err = nil
	}
	if err != nil && !errors.Is(err, errFolded) {
		return nil, err
	}
	if err == nil && r.id != nil {
		if err := foldLog(db, r.id, p, guard, s); err != nil {
			return nil, err
		}
	}
	// Removing it is tidiness: its id is recorded, no open folds it again
	// (a damaged one is kept aside).
	_ = removeOverlay(dir)
	return out, nil
}
