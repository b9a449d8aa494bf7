package cas

// Records of valueThreshold bytes or more (the stat cache record of a
// directory of some 13,000 files, a long session) go to pack files, as
// blobs do: Badger's value log is never written, so its files can be
// small (see valueLogFileSize), and a record of any length fits.

import (
	"fmt"

	"github.com/dgraph-io/badger/v4"
)

// setEntries returns entries as Badger entries: a value of
// valueThreshold bytes or more is put in a pack, which is synced, and
// named by a pointer (metaPacked), the rest as they are. The packs are
// durable when it returns, so the pointers may be committed.
func (b *Badger) setEntries(entries []Entry) ([]*badger.Entry, error) {
	out := make([]*badger.Entry, len(entries))
	var ids map[uint64]struct{}
	for i, e := range entries {
		if len(e.Value) < valueThreshold {
			out[i] = badger.NewEntry(e.Key, e.Value)
			continue
		}
		ptr, err := b.packs.add(e.Value)
		if err != nil {
			return nil, err
		}
		if ids == nil {
			ids = map[uint64]struct{}{}
		}
		ids[ptr.pack] = struct{}{}
		out[i] = badger.NewEntry(e.Key, ptr.encode()).WithMeta(metaPacked)
	}
	if ids != nil {
		if err := b.packs.sync(ids); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// putRecord writes a record through w: into the LSM tree, or, from
// valueThreshold bytes on, into a pack (a pointer written once the pack
// is synced, as for any value of a batch).
func (w *badgerBatch) putRecord(key, value []byte) error {
	if len(value) >= valueThreshold {
		return w.Put(key, value)
	}
	if err := w.space.check(int64(len(key) + len(value))); err != nil {
		return err
	}
	if err := w.wb.Set(key, value); err != nil {
		return fmt.Errorf("cas: batch put: %w", err)
	}
	return nil
}
