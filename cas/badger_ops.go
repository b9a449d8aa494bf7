package cas

// The Backend operations of a Badger store: reads, writes and scans.

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	"github.com/dgraph-io/badger/v4"
)

// Get implements Backend.
func (b *Badger) Get(ctx context.Context, key []byte) ([]byte, error) {
	v, packed, shared, err := b.lookup(ctx, key)
	switch {
	case err != nil:
		return nil, err
	case packed:
		return b.unpack(v)
	case shared:
		return bytes.Clone(v), nil
	}
	return v, nil
}

// lookup returns the value under key, a pack pointer unread (packed).
// shared: the value is the scratch's own, not to be changed or handed
// out.
func (b *Badger) lookup(ctx context.Context, key []byte) (v []byte, packed, shared bool, err error) {
	if err := ctx.Err(); err != nil {
		return nil, false, false, err
	}
	db, sc, err := b.state()
	if err != nil {
		return nil, false, false, err
	}
	if sc != nil {
		if v, ptr, found, known := sc.getRaw(key); known {
			if !found {
				return nil, false, false, ErrNotFound
			}
			return v, ptr, !ptr, nil
		}
	}
	err = db.View(func(txn *badger.Txn) error {
		item, err := txn.Get(key)
		if err != nil {
			return err
		}
		packed = item.UserMeta()&metaPacked != 0
		v, err = item.ValueCopy(nil)
		return err
	})
	if errors.Is(err, badger.ErrKeyNotFound) {
		return nil, false, false, ErrNotFound
	}
	if err != nil {
		return nil, false, false, b.wrap("get", err)
	}
	return v, packed, false, nil
}

// getRef is Get, but a block member's pointer comes back unread: the
// Store reads its block through readBlock, or finds it decoded already.
func (b *Badger) getRef(ctx context.Context, key []byte) (blobRef, error) {
	v, packed, shared, err := b.lookup(ctx, key)
	if err != nil || !packed {
		return blobRef{stored: v, shared: shared}, err
	}
	p, err := decodePackPtr(v)
	if err != nil {
		return blobRef{}, err
	}
	if p.member {
		return blobRef{ptr: p, member: true}, nil
	}
	v, err = b.packs.readPooled(p)
	return blobRef{stored: v, pooled: true}, err
}

// readBlock returns the stored form of the block that member pointer p
// names, in a buffer of getBuf. damaged: it failed its checksum, and
// only a member's own check may accept bytes of it.
func (b *Badger) readBlock(p packPtr) (block []byte, damaged bool, err error) {
	v, err := b.packs.readPooled(p)
	var dmg *damagedBlockError
	if errors.As(err, &dmg) {
		return v, true, nil
	}
	return v, false, err
}

// unpack reads the value a pack pointer names.
func (b *Badger) unpack(ptr []byte) ([]byte, error) {
	p, err := decodePackPtr(ptr)
	if err != nil {
		return nil, err
	}
	v, err := b.packs.read(p)
	var dmg *damagedBlockError
	if errors.As(err, &dmg) {
		return memberValue(p.memOff, p.memLen, v), nil
	}
	if err != nil || !p.member {
		return v, err
	}
	return memberValue(p.memOff, p.memLen, v), nil
}

func (b *Badger) wrap(op string, err error) error {
	if errors.Is(err, badger.ErrDBClosed) {
		return ErrClosed
	}
	return fmt.Errorf("cas: badger %s: %w", op, err)
}

// Has implements Backend.
func (b *Badger) Has(ctx context.Context, key []byte) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, err
	}
	db, sc, err := b.state()
	if err != nil {
		return false, err
	}
	if sc != nil {
		if _, found, known, _ := sc.ownPresence(key); known {
			return found, nil
		}
	}
	err = db.View(func(txn *badger.Txn) error {
		_, err := txn.Get(key)
		return err
	})
	if errors.Is(err, badger.ErrKeyNotFound) {
		return false, nil
	}
	if err != nil {
		return false, b.wrap("has", err)
	}
	return true, nil
}

// Set implements Backend.
func (b *Badger) Set(ctx context.Context, entries ...Entry) error {
	if err := fault("dbset", b.dir); err != nil {
		return b.wrap("set", err)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if b.readOnly {
		return fmt.Errorf("%w: %s", ErrReadOnly, b.dir)
	}
	if ok, err := b.deferWrite(entries, nil, false); ok {
		return err
	}
	if err := b.space.fresh(entriesSize(entries, nil)); err != nil {
		return err
	}
	set, err := b.setEntries(entries)
	if err != nil {
		return err
	}
	err = b.db.Update(func(txn *badger.Txn) error {
		for _, e := range set {
			if err := txn.SetEntry(e); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return b.wrap("set", err)
	}
	return nil
}

// Delete implements Backend.
func (b *Badger) Delete(ctx context.Context, keys ...[]byte) error {
	if err := fault("dbdelete", b.dir); err != nil {
		return b.wrap("delete", err)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if b.readOnly {
		return fmt.Errorf("%w: %s", ErrReadOnly, b.dir)
	}
	if ok, err := b.deferWrite(nil, keys, false); ok {
		return err
	}
	if err := b.space.fresh(entriesSize(nil, keys)); err != nil {
		return err
	}
	err := b.db.Update(func(txn *badger.Txn) error {
		for _, k := range keys {
			if err := txn.Delete(k); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return b.wrap("delete", err)
	}
	return nil
}

// Update implements Backend.
func (b *Badger) Update(ctx context.Context, entries []Entry, deletes [][]byte) error {
	if err := fault("dbupdate", b.dir); err != nil {
		return b.wrap("update", err)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if b.readOnly {
		return fmt.Errorf("%w: %s", ErrReadOnly, b.dir)
	}
	if ok, err := b.deferWrite(entries, deletes, false); ok {
		return err
	}
	if err := b.space.fresh(entriesSize(entries, deletes)); err != nil {
		return err
	}
	set, err := b.setEntries(entries)
	if err != nil {
		return err
	}
	err = b.db.Update(func(txn *badger.Txn) error {
		for _, k := range deletes {
			if err := txn.Delete(k); err != nil {
				return err
			}
		}
		for _, e := range set {
			if err := txn.SetEntry(e); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return b.wrap("update", err)
	}
	return nil
}

// Scan implements Backend.
func (b *Badger) Scan(ctx context.Context, prefix []byte, keysOnly bool, fn func(key, value []byte) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	db, sc, err := b.state()
	if err != nil {
		return err
	}
	if sc != nil {
		return sc.scan(ctx, prefix, keysOnly, func(f func(k, v []byte) error) error {
			return b.scan(ctx, db, prefix, keysOnly, f)
		}, fn)
	}
	return b.scan(ctx, db, prefix, keysOnly, fn)
}

func (b *Badger) scan(ctx context.Context, db *badger.DB, prefix []byte, keysOnly bool, fn func(key, value []byte) error) error {
	err := db.View(func(txn *badger.Txn) error {
		opt := badger.DefaultIteratorOptions
		opt.Prefix = prefix
		opt.PrefetchValues = false // values are read one at a time below
		it := txn.NewIterator(opt)
		defer it.Close()
		for it.Seek(prefix); it.ValidForPrefix(prefix); it.Next() {
			if err := ctx.Err(); err != nil {
				return err
			}
			item := it.Item()
			var err error
			switch {
			case keysOnly:
				err = fn(item.Key(), nil)
			case item.UserMeta()&metaPacked != 0:
				var v []byte
				if v, err = item.ValueCopy(nil); err == nil {
					if v, err = b.unpack(v); err == nil {
						err = fn(item.Key(), v)
					}
				}
			case item.ValueSize() >= valueThreshold:
				// In Badger's value log: read under the log file's read
				// lock, which fn must not run under (it may read the
				// store again while a writer waits for that lock).
				var v []byte
				if v, err = item.ValueCopy(nil); err == nil {
					err = fn(item.Key(), v)
				}
			default:
				// In the LSM tree, valid only during the call, as Scan
				// says: not copied.
				err = item.Value(func(v []byte) error { return fn(item.Key(), v) })
			}
			if err != nil {
				return err
			}
		}
		return nil
	})
	if errors.Is(err, badger.ErrDBClosed) {
		return ErrClosed
	}
	return err
}
