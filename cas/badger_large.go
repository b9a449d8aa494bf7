package cas

// Records of valueThreshold bytes or more (the stat cache record of a
// directory of some 13,000 files, a long session) go to pack files, as
// blobs do: Badger's value log is never written, so its files can be
// small (see valueLogFileSize), and a record of any length fits.

import (
	"fmt"
	"sort"

	"github.com/dgraph-io/badger/v4"
)

// setEntries returns entries as Badger entries: a value of
// valueThreshold bytes or more is put in a pack, which is synced, and
// named by a pointer (metaPacked), the rest as they are, but for the
// largest values past maxInline (toPack). The packs are durable when it
// returns, so the pointers may be committed.
func (b *Badger) setEntries(entries []Entry) ([]*badger.Entry, error) {
	out := make([]*badger.Entry, len(entries))
	var ids map[uint64]struct{}
	pack := toPack(entries)
	for i, e := range entries {
		if !pack[i] {
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

// maxInline is the most bytes of keys and values one transaction keeps
// in the LSM tree. Badger refuses a transaction past 15% of the 8 MiB
// memtable ("Txn is too big"): records each under valueThreshold could
// together pass it, and a restore that cannot commit its records after
// changing the files would stop every later command.
const maxInline = 512 << 10

// minPacked: a value this small is never put in a pack to make room (a
// pointer would save little).
const minPacked = 4 << 10

// toPack returns which entries setEntries puts in a pack: every value of
// valueThreshold bytes or more, then the largest others until the rest
// fit in maxInline.
func toPack(entries []Entry) map[int]bool {
	pack := map[int]bool{}
	inline := 0
	var order []int
	for i, e := range entries {
		if len(e.Value) >= valueThreshold {
			pack[i] = true
			continue
		}
		inline += len(e.Key) + len(e.Value)
		if len(e.Value) >= minPacked {
			order = append(order, i)
		}
	}
	if inline <= maxInline {
		return pack
	}
	sort.SliceStable(order, func(a, b int) bool { return len(entries[order[a]].Value) > len(entries[order[b]].Value) })
	for _, i := range order {
		if inline <= maxInline {
			break
		}
		pack[i] = true
		inline -= len(entries[i].Value)
	}
	return pack
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
