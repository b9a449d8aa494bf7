package cas

// The batch of a deferred store (see deferred.go).

import (
	"bytes"
	"fmt"
	"sync"

	"github.com/dgraph-io/badger/v4"
)

// deferBatch is the Batch of a deferred store. A value of packThreshold
// bytes or more goes to a pack file at once, as in a write-mode store's
// batch, and its pointer, once Flush has synced the pack, to memory (and
// from there to the log's next frame); a smaller value goes to memory.
// Once the store opened Badger for writing, everything goes to a batch
// of Badger's.
type deferBatch struct {
	b       *Badger
	mu      sync.Mutex
	inner   Batch
	pending []pendingPtr // pointers whose pack Flush syncs first
	done    bool
}

func (w *deferBatch) Put(key, value []byte) error { return w.put(key, value, false) }

func (w *deferBatch) putCopy(key, value []byte) error { return w.put(key, value, true) }

func (w *deferBatch) put(key, value []byte, copies bool) error {
	w.mu.Lock()
	done := w.done
	w.mu.Unlock()
	if done {
		return errBatchDone
	}
	if len(value) >= packThreshold && w.b.commitsLater() {
		ptr, err := w.b.packs.add(value) // copies value
		if err != nil {
			return err
		}
		w.mu.Lock()
		defer w.mu.Unlock()
		if w.done {
			return errBatchDone // a Flush or Cancel came meanwhile
		}
		w.pending = append(w.pending, pendingPtr{key: bytes.Clone(key), ptr: ptr.encode(), pack: ptr.pack})
		return nil
	}
	if ok, err := w.b.deferWrite([]Entry{{Key: key, Value: value}}, nil, true); ok {
		return err
	}
	inner := w.innerBatch()
	if pc, ok := inner.(copyPutter); ok && copies {
		return pc.putCopy(key, value)
	}
	if copies {
		value = append([]byte(nil), value...)
	}
	return inner.Put(key, value)
}

// putBlock implements blockPutter: while the store is deferred, the
// block goes to a pack at once and its members' pointers wait for
// Flush, as a large value's; afterwards, to Badger's batch.
func (w *deferBatch) putBlock(stored []byte, members []blockMember) error {
	w.mu.Lock()
	done := w.done
	w.mu.Unlock()
	if done {
		return errBatchDone
	}
	if w.b.commitsLater() {
		ptr, err := w.b.packs.add(stored)
		if err != nil {
			return err
		}
		w.mu.Lock()
		defer w.mu.Unlock()
		if w.done {
			return errBatchDone
		}
		for _, m := range members {
			mp := ptr
			mp.member, mp.memOff, mp.memLen = true, int64(m.off), int64(m.len)
			w.pending = append(w.pending, pendingPtr{key: bytes.Clone(m.key), ptr: mp.encode(), pack: ptr.pack})
		}
		return nil
	}
	inner := w.innerBatch()
	if bp, ok := inner.(blockPutter); ok {
		return bp.putBlock(stored, members)
	}
	// Not expected (a write-mode store's batch stores blocks): each
	// member as a value of its own, the block with it.
	for _, m := range members {
		if err := inner.Put(m.key, memberValue(int64(m.off), int64(m.len), stored)); err != nil {
			return err
		}
	}
	return nil
}

func (w *deferBatch) innerBatch() Batch {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.inner == nil {
		w.inner = w.b.NewBatch()
	}
	return w.inner
}

// Flush syncs the packs the pending pointers name, then hands the
// pointers to the store: to memory while it is deferred, to Badger (as a
// write-mode batch would) once it is not.
func (w *deferBatch) Flush() error {
	w.mu.Lock()
	if w.done {
		w.mu.Unlock()
		return errBatchDone
	}
	w.done = true
	pending := w.pending
	w.pending = nil
	w.mu.Unlock()
	if len(pending) > 0 {
		ids := map[uint64]struct{}{}
		for _, p := range pending {
			ids[p.pack] = struct{}{}
		}
		if err := w.b.packs.sync(ids); err != nil {
			w.Cancel()
			return err
		}
		entries := make([]Entry, len(pending))
		for i, p := range pending {
			entries[i] = Entry{Key: p.key, Value: p.ptr}
		}
		if ok, err := w.b.deferPointers(entries); err != nil {
			w.Cancel()
			return err
		} else if !ok {
			inner := w.innerBatch()
			bb, isBadger := inner.(*badgerBatch)
			if !isBadger || bb.wb == nil || bb.db.IsClosed() {
				w.Cancel()
				return ErrClosed
			}
			for _, e := range entries {
				if err := bb.wb.SetEntry(badger.NewEntry(e.Key, e.Value).WithMeta(metaPacked)); err != nil {
					w.Cancel()
					return fmt.Errorf("cas: batch put: %w", err)
				}
			}
		}
	}
	w.mu.Lock()
	inner := w.inner
	w.mu.Unlock()
	if inner != nil {
		return inner.Flush()
	}
	return nil
}

func (w *deferBatch) Cancel() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.done = true
	if len(w.pending) > 0 {
		ids := map[uint64]struct{}{}
		for _, p := range w.pending {
			ids[p.pack] = struct{}{}
		}
		w.b.packs.abandon(ids)
		w.pending = nil
	}
	if w.inner != nil {
		w.inner.Cancel()
	}
}
