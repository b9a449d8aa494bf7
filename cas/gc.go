package cas

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/dgraph-io/badger/v4"
)

// reclaimGap, when set by a test, runs while Reclaim has the database
// closed.
var reclaimGap func()

// LiveSet holds the addresses a garbage collection must keep.
type LiveSet map[Hash]struct{}

// MarkContent adds content h to live: its blob, or its chunk list and
// every chunk. A chunk list that cannot be read is an error (the caller
// must not sweep with an incomplete mark).
func (s *Store) MarkContent(ctx context.Context, h Hash, live LiveSet) error {
	if _, ok := live[h]; ok {
		return nil
	}
	live[h] = struct{}{}
	refs, _, err := s.Chunks(ctx, h)
	if err != nil {
		return err
	}
	for _, r := range refs {
		live[r.Hash] = struct{}{}
	}
	return nil
}

// SweepStats counts what Sweep removed (or would remove).
type SweepStats struct {
	Blobs   int64 `json:"blobs"`
	Indexes int64 `json:"chunk_lists"`
	Kept    int64 `json:"kept"`
}

// Sweep deletes every blob and chunk list whose address is not in live.
// With dryRun it only counts. Deletion runs in bounded transactions; a
// crash part way leaves only more garbage, never a live blob deleted.
func (s *Store) Sweep(ctx context.Context, live LiveSet, dryRun bool) (SweepStats, error) {
	var st SweepStats
	var dead [][]byte
	for _, prefix := range [][]byte{prefixBlob, prefixIndex} {
		err := s.b.Scan(ctx, prefix, true, func(k, _ []byte) error {
			if len(k) != len(prefix)+HashSize {
				return nil // not ours
			}
			var h Hash
			copy(h[:], k[len(prefix):])
			if _, ok := live[h]; ok {
				st.Kept++
				return nil
			}
			if bytes.Equal(prefix, prefixBlob) {
				st.Blobs++
			} else {
				st.Indexes++
			}
			dead = append(dead, bytes.Clone(k))
			return nil
		})
		if err != nil {
			return st, err
		}
	}
	if dryRun {
		return st, nil
	}
	const batch = 500
	for i := 0; i < len(dead); i += batch {
		if err := s.b.Delete(ctx, dead[i:min(i+batch, len(dead))]...); err != nil {
			return st, err
		}
	}
	return st, s.b.Sync()
}

// Reclaim makes Badger give disk space back after deletes: deleting keys
// alone frees nothing. It flushes the memtable by closing and reopening
// the database, rewrites the pack files that are mostly dead (see
// repack), flattens the LSM tree into one level (values below the value
// threshold live there, and the compaction drops deleted ones), and runs
// value-log GC until it finds nothing to rewrite.
func (b *Badger) Reclaim(ctx context.Context) error {
	if b.readOnly {
		return fmt.Errorf("cas: reclaim: store %s opened read-only", b.dir)
	}
	if err := b.Upgrade(); err != nil {
		return err
	}
	b.swap.Lock()
	if b.ro != nil {
		// The read-only database a deferred store began with would keep
		// the files gc deletes on the disk until Close.
		_ = b.ro.Close()
		b.ro = nil
	}
	b.swap.Unlock()
	if canLockDir && b.lock == nil {
		// Badger's own lock would go with the close below.
		return fmt.Errorf("cas: reclaim: store %s is not held by turnback's own lock", b.dir)
	}
	if err := b.packs.startFresh(); err != nil {
		return err
	}
	if err := b.db.Close(); err != nil {
		return b.wrap("close for reclaim", err)
	}
	if reclaimGap != nil {
		reclaimGap()
	}
	db, err := b.reopen(ctx)
	if err != nil {
		// b.db stays the closed database: every method reports ErrClosed.
		b.dead = true
		return err
	}
	b.swap.Lock()
	b.db = db
	b.swap.Unlock()
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := b.repack(ctx); err != nil {
		return err
	}
	if err := b.db.Flatten(2); err != nil {
		return b.wrap("flatten", err)
	}
	for i := 0; i < 100; i++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		err := b.db.RunValueLogGC(0.5)
		if errors.Is(err, badger.ErrNoRewrite) || errors.Is(err, badger.ErrRejected) {
			break
		}
		if err != nil {
			return b.wrap("value log gc", err)
		}
	}
	return nil
}

// reopen opens the database again after Reclaim closed it. Where
// turnback takes the directory lock itself, this process holds it
// throughout, and no other process takes the store in between.
// Elsewhere Badger's lock went with the close: the reopen waits for it
// as OpenBadger would. The overlay log is then folded, as at any
// write-mode open: repack must never count the pointers of the database
// alone while the log holds more.
func (b *Badger) reopen(ctx context.Context) (*badger.DB, error) {
	opts := badgerOptions(b.dir)
	opts.BypassLockGuard = b.lock != nil
	var db *badger.DB
	var err error
	for i := 0; ; i++ {
		db, err = badger.Open(opts)
		if err == nil || !isLockError(err) || i == 200 {
			break
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
	if err != nil {
		return nil, fmt.Errorf("cas: reopen %s for reclaim: %w", b.dir, err)
	}
	if err := prepareMemtables(b.dir, ""); err != nil {
		db.Close() // nothing written: its memtable is empty
		return nil, err
	}
	if _, err := foldOverlay(db, b.dir, b.packs, b.space, false); err != nil {
		db.Close()
		return nil, fmt.Errorf("cas: reopen %s for reclaim: %w", b.dir, err)
	}
	return db, nil
}

// repackBatch bounds the pointers moved per transaction.
const repackBatch = 1000

// repack gives back the space of dead values in pack files: a pack no
// pointer names is deleted; a pack whose live values fill less than
// half of it has them copied to a new pack, which is synced before the
// pointers are switched to it (each only if it still names the old
// place), and the old pack is deleted once the switch is synced too. A
// crash at any point leaves every pointer naming durable data; packs it
// leaves unreferenced are deleted by the next Reclaim.
func (b *Badger) repack(ctx context.Context) error {
	// The copies go to new packs, never to one listed here.
	if err := b.packs.startFresh(); err != nil {
		return err
	}
	list, err := listPacks(b.dir)
	if err != nil {
		return fmt.Errorf("cas: list packs: %w", err)
	}
	if len(list) == 0 {
		return nil
	}
	// Packs created from here on (the copies) are not candidates.
	limit := list[len(list)-1].id + 1
	live := make(map[uint64]int64)
	blocks := make(map[[2]int64]bool) // a block counts once, however many members it has
	if err := b.scanPacked(ctx, func(_ []byte, p packPtr, _ []byte) error {
		if p.member {
			if blocks[p.loc()] {
				return nil
			}
			blocks[p.loc()] = true
		}
		live[p.pack] += p.size
		return nil
	}); err != nil {
		return err
	}
	rewrite := make(map[uint64]bool)
	keep := make(map[uint64]bool) // packs to rewrite that hold a damaged live value
	var remove []uint64
	for _, pk := range list {
		n := live[pk.id]
		switch {
		case n == 0:
			remove = append(remove, pk.id)
		case 2*n < pk.size-int64(len(packMagic)):
			rewrite[pk.id] = true
			remove = append(remove, pk.id)
		}
	}
	if len(rewrite) > 0 {
		type move struct{ key, old, new []byte }
		var moves []move
		commit := func() error {
			if len(moves) == 0 {
				return nil
			}
			if err := b.packs.sync(nil); err != nil {
				return err
			}
			err := b.db.Update(func(txn *badger.Txn) error {
				for _, m := range moves {
					item, err := txn.Get(m.key)
					if errors.Is(err, badger.ErrKeyNotFound) {
						continue
					}
					if err != nil {
						return err
					}
					if item.UserMeta()&metaPacked == 0 {
						continue
					}
					cur, err := item.ValueCopy(nil)
					if err != nil {
						return err
					}
					if !bytes.Equal(cur, m.old) {
						continue
					}
					if err := txn.SetEntry(badger.NewEntry(m.key, m.new).WithMeta(metaPacked)); err != nil {
						return err
					}
				}
				return nil
			})
			if err != nil {
				return b.wrap("repack", err)
			}
			moves = moves[:0]
			return nil
		}
		copied := make(map[[2]int64]packPtr) // blocks copied: each once, for all its members
		err := b.scanPacked(ctx, func(key []byte, p packPtr, raw []byte) error {
			if !rewrite[p.pack] || p.pack >= limit {
				return nil
			}
			np, ok := copied[p.loc()]
			if !ok || !p.member {
				val, err := b.packs.read(p)
				if errors.Is(err, ErrCorrupt) {
					// A damaged value cannot be copied as it was: its
					// pack is kept, and its pointer left naming it, so
					// verify still names the damage and a repair can
					// store the content again.
					keep[p.pack] = true
					return nil
				}
				if err != nil {
					return fmt.Errorf("cas: repack %s: %w", key, err)
				}
				if np, err = b.packs.add(val); err != nil {
					return err
				}
				if p.member {
					copied[p.loc()] = np
				}
			}
			moves = append(moves, move{key: bytes.Clone(key), old: bytes.Clone(raw), new: p.moved(np).encode()})
			return nil
		})
		if err != nil {
			return err
		}
		// Switch pointers in bounded transactions after one sync.
		all := moves
		for i := 0; i < len(all); i += repackBatch {
			moves = all[i:min(i+repackBatch, len(all))]
			if err := commit(); err != nil {
				return err
			}
		}
		if err := b.packs.closeWriter(); err != nil {
			return err
		}
	}
	if len(remove) == 0 {
		return nil
	}
	if err := b.Sync(); err != nil {
		return err
	}
	for _, id := range remove {
		if keep[id] {
			continue
		}
		b.packs.dropReader(id)
		if err := os.Remove(filepath.Join(b.dir, packName(id))); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("cas: remove pack: %w", err)
		}
	}
	if err := syncDir(b.dir); err != nil {
		return fmt.Errorf("cas: reclaim: %w", b.packs.noSpace(err))
	}
	return nil
}

// scanPacked calls fn with every key whose value is a pack pointer, the
// pointer decoded and as stored.
func (b *Badger) scanPacked(ctx context.Context, fn func(key []byte, p packPtr, raw []byte) error) error {
	opt := badger.DefaultIteratorOptions
	opt.PrefetchValues = false
	err := viewEach(ctx, b.db, opt, func(item *badger.Item) error {
		if item.UserMeta()&metaPacked == 0 {
			return nil
		}
		raw, err := item.ValueCopy(nil)
		if err != nil {
			return err
		}
		p, err := decodePackPtr(raw)
		if err != nil {
			return fmt.Errorf("cas: key %q: %w", item.Key(), err)
		}
		return fn(item.Key(), p, raw)
	})
	if errors.Is(err, badger.ErrDBClosed) {
		return ErrClosed
	}
	return err
}

// DiskUsage returns the bytes the store directory dir occupies (sum of its
// files' sizes).
func DiskUsage(dir string) (int64, error) {
	var total int64
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, os.ErrNotExist) {
				return nil
			}
			return err
		}
		if d.Type().IsRegular() {
			if fi, err := d.Info(); err == nil {
				total += allocated(fi)
			}
		}
		return nil
	})
	return total, err
}
