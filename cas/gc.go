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
// the database, flattens the LSM tree into one level (values below the
// value threshold live there, and the compaction drops deleted ones), and
// runs value-log GC until it finds nothing to rewrite.
func (b *Badger) Reclaim(ctx context.Context) error {
	if err := b.db.Close(); err != nil {
		return b.wrap("close for reclaim", err)
	}
	// Another process may take the lock between close and reopen; wait
	// for it as OpenBadger would.
	var db *badger.DB
	var err error
	for i := 0; ; i++ {
		db, err = badger.Open(badgerOptions(b.dir))
		if err == nil || !isLockError(err) || i == 200 {
			break
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
	if err != nil {
		// b.db stays the closed database: every method reports ErrClosed.
		b.dead = true
		return fmt.Errorf("cas: reopen %s for reclaim: %w", b.dir, err)
	}
	b.db = db
	if err := ctx.Err(); err != nil {
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
