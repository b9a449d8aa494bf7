package cas

// The Badger backend's write batches: small values into the LSM tree,
// large ones into pack files whose pointers are written once the pack is
// durable (see badger.go for the store itself).

import (
	"bytes"
	"fmt"
	"sync"

	"github.com/dgraph-io/badger/v4"
)

// NewBatch implements Backend. Values of at least packThreshold bytes
// go to pack files; their pointers are written once the pack is durable.
func (b *Badger) NewBatch() Batch {
	b.swap.RLock()
	db, sc, deferred := b.db, b.scratch, b.def != nil
	b.swap.RUnlock()
	if db.IsClosed() {
		// A WriteBatch of a closed DB can block forever in Flush.
		return &badgerBatch{db: db}
	}
	if deferred {
		return &deferBatch{b: b}
	}
	if b.readOnly {
		return &scratchBatch{s: sc}
	}
	return &badgerBatch{db: db, packs: b.packs, wb: db.NewWriteBatch(), space: b.space}
}

type badgerBatch struct {
	db    *badger.DB
	packs *packs
	wb    *badger.WriteBatch // nil when created after Close
	space *spaceGuard

	mu      sync.Mutex
	pending []pendingPtr // pointers into packs not yet known durable
	minPack uint64       // lowest pack id in pending
	err     error        // a pointer could not be written
}

// pendingPtr is a pointer to write once its pack is durable.
type pendingPtr struct {
	key  []byte
	ptr  []byte
	pack uint64
}

func (w *badgerBatch) Put(key, value []byte) error {
	if w.wb == nil || w.db.IsClosed() {
		return ErrClosed
	}
	if len(value) < packThreshold {
		if err := w.space.check(int64(len(key) + len(value))); err != nil {
			return err
		}
		if err := w.wb.Set(key, value); err != nil {
			return fmt.Errorf("cas: batch put: %w", err)
		}
		return nil
	}
	ptr, err := w.packs.add(value)
	if err != nil {
		return err
	}
	return w.addPending(pendingPtr{key: key, ptr: ptr.encode(), pack: ptr.pack})
}

// putBlock implements blockPutter: the block goes to a pack as one
// value, and each member gets a pointer to its span of it.
func (w *badgerBatch) putBlock(stored []byte, members []blockMember) error {
	if w.wb == nil || w.db.IsClosed() {
		return ErrClosed
	}
	ptr, err := w.packs.add(stored)
	if err != nil {
		return err
	}
	ps := make([]pendingPtr, len(members))
	for i, m := range members {
		mp := ptr
		mp.member, mp.memOff, mp.memLen = true, int64(m.off), int64(m.len)
		ps[i] = pendingPtr{key: m.key, ptr: mp.encode(), pack: ptr.pack}
	}
	return w.addPending(ps...)
}

// addPending queues pointers into packs, to be written once their packs
// are durable.
func (w *badgerBatch) addPending(ps ...pendingPtr) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return w.err
	}
	for _, p := range ps {
		if len(w.pending) == 0 || p.pack < w.minPack {
			w.minPack = p.pack
		}
		w.pending = append(w.pending, p)
	}
	if w.minPack < w.packs.sealedBelow() {
		// A pack was sealed (synced) since: its pointers can go.
		return w.release(false)
	}
	return nil
}

// putCopy implements copyPutter: a value that goes to a pack is copied
// there by Put; a smaller one, which the write batch keeps, is copied
// first.
func (w *badgerBatch) putCopy(key, value []byte) error {
	if len(value) < packThreshold {
		value = bytes.Clone(value)
	}
	return w.Put(key, value)
}

// release hands the pending pointers whose packs are durable (all of
// them with all set, after a sync) to the write batch. Caller holds w.mu.
func (w *badgerBatch) release(all bool) error {
	keep := w.pending[:0]
	w.minPack = 0
	for _, p := range w.pending {
		ok, err := w.packs.durable(p.pack)
		if err != nil {
			w.err = err
			return err
		}
		if !ok && !all {
			if len(keep) == 0 || p.pack < w.minPack {
				w.minPack = p.pack
			}
			keep = append(keep, p)
			continue
		}
		if err := w.wb.SetEntry(badger.NewEntry(p.key, p.ptr).WithMeta(metaPacked)); err != nil {
			w.err = fmt.Errorf("cas: batch put: %w", err)
			return w.err
		}
	}
	clear(w.pending[len(keep):])
	w.pending = keep
	return nil
}

func (w *badgerBatch) Flush() error {
	if w.wb == nil || w.db.IsClosed() {
		return ErrClosed
	}
	w.mu.Lock()
	err := w.err
	if err == nil && len(w.pending) > 0 {
		ids := make(map[uint64]struct{})
		for _, p := range w.pending {
			ids[p.pack] = struct{}{}
		}
		if err = w.packs.sync(ids); err == nil {
			err = w.release(true)
		}
	}
	w.pending = nil
	w.mu.Unlock()
	if err != nil {
		w.wb.Cancel()
		return err
	}
	if err := w.wb.Flush(); err != nil {
		return fmt.Errorf("cas: batch flush: %w", w.packs.noSpace(err))
	}
	return nil
}

func (w *badgerBatch) Cancel() {
	w.mu.Lock()
	if len(w.pending) > 0 {
		// Values of a cancelled batch are garbage: the pack they went to
		// is given up rather than synced and kept (see packs.abandon).
		ids := make(map[uint64]struct{})
		for _, p := range w.pending {
			ids[p.pack] = struct{}{}
		}
		w.packs.abandon(ids)
	}
	w.pending = nil
	w.mu.Unlock()
	if w.wb != nil && !w.db.IsClosed() {
		w.wb.Cancel()
	}
}

// entriesSize is about what a transaction of entries and deletes adds to
// Badger's memtable.
func entriesSize(entries []Entry, deletes [][]byte) int64 {
	n := int64(0)
	for _, e := range entries {
		n += int64(len(e.Key) + len(e.Value) + 16)
	}
	for _, k := range deletes {
		n += int64(len(k) + 16)
	}
	return n
}
