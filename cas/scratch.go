package cas

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/dgraph-io/badger/v4"
)

// ErrNoStore: a read-only open found no database.
var ErrNoStore = errors.New("cas: no store")

// scratch holds the writes made to a store opened read-only: a reading
// command that captures the work tree (status) writes its blobs and trees
// here and reads them back, and they are gone at Close. Reads see the
// scratch first, then the database.
type scratch struct {
	mu    sync.RWMutex
	vals  map[string][]byte // written
	gone  map[string]bool   // deleted
	bytes int64             // held in vals
	// under: the layer below, read for keys this one does not decide (a
	// deferred store's uncommitted writes lie over its committed ones).
	under *scratch
	// packed: keys of vals written through a batch (a deferred store
	// folds them into pack files when large; records stay in the LSM
	// tree, see foldScratch).
	packed map[string]bool
	// ptrs: keys whose value is a pointer into a pack file (a deferred
	// store's batch values, see deferBatch), read through unpack.
	ptrs   map[string]bool
	unpack func(ptr []byte) ([]byte, error)
}

// maxScratch bounds the memory a read-only store's writes may take (a
// status of a large tree that the store has never seen); past it a write
// fails with ErrScratchFull. A variable for tests.
var maxScratch int64 = 1 << 30

// ErrScratchFull: a store opened read-only was given more to keep in
// memory than maxScratch.
var ErrScratchFull = errors.New("cas: too much new content to compare without writing the store")

func newScratch() *scratch {
	return &scratch{vals: map[string][]byte{}, gone: map[string]bool{}}
}

// get returns the scratch's value of key; known says whether the scratch
// (or a layer under it) decides (written or deleted there).
func (s *scratch) get(key []byte) (v []byte, found, known bool, err error) {
	if v, found, known, err = s.own(key); known || s.under == nil {
		return v, found, known, err
	}
	return s.under.get(key)
}

// own is get of this layer alone.
func (s *scratch) own(key []byte) (v []byte, found, known bool, err error) {
	v, ptr, found, known := s.ownRaw(key)
	if ptr {
		v, err = s.unpack(v)
		return v, err == nil, true, err
	}
	return bytes.Clone(v), found, known, nil
}

// getRaw is get, but a pack pointer comes back unread (ptr true), and
// a value is the layer's own: the caller must not change it, nor hand
// it out.
func (s *scratch) getRaw(key []byte) (v []byte, ptr, found, known bool) {
	if v, ptr, found, known = s.ownRaw(key); known || s.under == nil {
		return v, ptr, found, known
	}
	return s.under.getRaw(key)
}

// ownRaw is getRaw of this layer alone.
func (s *scratch) ownRaw(key []byte) (v []byte, ptr, found, known bool) {
	s.mu.RLock()
	v, ok := s.vals[string(key)]
	ptr = s.ptrs[string(key)]
	gone := s.gone[string(key)]
	s.mu.RUnlock()
	if !ok {
		return nil, false, false, gone
	}
	return v, ptr, true, true
}

// update writes entries (through a batch: packed) and deletes keys.
func (s *scratch) update(entries []Entry, deletes [][]byte, packed bool) {
	s.write(entries, deletes, packed, false)
}

// updatePtrs writes entries whose values are pack pointers (a deferred
// store's batch values, in durable packs).
func (s *scratch) updatePtrs(entries []Entry) { s.write(entries, nil, true, true) }

func (s *scratch) write(entries []Entry, deletes [][]byte, packed, ptr bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, k := range deletes {
		delete(s.vals, string(k))
		delete(s.packed, string(k))
		delete(s.ptrs, string(k))
		s.gone[string(k)] = true
	}
	for _, e := range entries {
		k := string(e.Key)
		s.bytes += int64(len(e.Key) + len(e.Value) - len(s.vals[k]))
		s.vals[k] = bytes.Clone(e.Value)
		delete(s.gone, k)
		s.setPacked(k, packed)
		s.setPtr(k, ptr)
	}
}

// setPacked records whether key's value came through a batch. Caller
// holds mu.
func (s *scratch) setPacked(key string, packed bool) {
	if packed {
		if s.packed == nil {
			s.packed = map[string]bool{}
		}
		s.packed[key] = true
	} else {
		delete(s.packed, key)
	}
}

// ops returns this layer's records (not the layers under it).
func (s *scratch) ops() []overlayOp {
	s.mu.RLock()
	defer s.mu.RUnlock()
	ops := make([]overlayOp, 0, len(s.vals)+len(s.gone))
	for k, v := range s.vals {
		ops = append(ops, overlayOp{key: []byte(k), value: v, pack: s.packed[k], ptr: s.ptrs[k]})
	}
	for k := range s.gone {
		ops = append(ops, overlayOp{key: []byte(k), del: true})
	}
	return ops
}

func (s *scratch) full() bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.bytes > maxScratch
}

// scan merges the scratch's keys with prefix into fn's view of the
// database's (base, which calls its function in key order).
func (s *scratch) scan(ctx context.Context, prefix []byte, keysOnly bool, base func(func(k, v []byte) error) error, fn func(k, v []byte) error) error {
	if s.under != nil {
		below := base
		base = func(f func(k, v []byte) error) error { return s.under.scan(ctx, prefix, keysOnly, below, f) }
	}
	s.mu.RLock()
	var keys []string
	for k := range s.vals {
		if len(k) >= len(prefix) && k[:len(prefix)] == string(prefix) {
			keys = append(keys, k)
		}
	}
	s.mu.RUnlock()
	sort.Strings(keys)
	emit := func(k string) error {
		if keysOnly {
			// Presence only: a pointer's value is not read.
			s.mu.RLock()
			_, found := s.vals[k]
			s.mu.RUnlock()
			if !found {
				return nil
			}
			return fn([]byte(k), nil)
		}
		v, found, _, err := s.own([]byte(k))
		if err != nil {
			return err
		}
		if !found {
			return nil
		}
		return fn([]byte(k), v)
	}
	err := base(func(k, v []byte) error {
		for len(keys) > 0 && keys[0] < string(k) {
			if err := emit(keys[0]); err != nil {
				return err
			}
			keys = keys[1:]
		}
		if len(keys) > 0 && keys[0] == string(k) {
			keys = keys[1:]
			return emit(string(k))
		}
		if _, _, known, _ := s.own(k); known {
			return nil // deleted in the scratch
		}
		return fn(k, v)
	})
	if err != nil {
		return err
	}
	for _, k := range keys {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := emit(k); err != nil {
			return err
		}
	}
	return nil
}

// scratchBatch is the Batch of a read-only Badger.
type scratchBatch struct {
	s    *scratch
	done atomic.Bool
}

func (b *scratchBatch) Put(key, value []byte) error {
	if b.done.Load() {
		return errBatchDone
	}
	if b.s.full() {
		return fmt.Errorf("%w (%d MiB in memory)", ErrScratchFull, maxScratch>>20)
	}
	b.s.update([]Entry{{Key: key, Value: value}}, nil, true)
	return nil
}

func (b *scratchBatch) putCopy(key, value []byte) error { return b.Put(key, value) }

func (b *scratchBatch) Flush() error {
	if b.done.Swap(true) {
		return errBatchDone
	}
	return nil
}

func (b *scratchBatch) Cancel() { b.done.Store(true) }

// ReadOnly reports whether b was opened read-only (its writes are kept in
// memory only).
func (b *Badger) ReadOnly() bool { return b.readOnly }

// ErrReadOnly: a record (Set, Update, Delete) written to a store opened
// read-only. Batches (blobs, trees) go to memory instead; records that
// would be lost silently are refused.
var ErrReadOnly = errors.New("cas: store opened read-only")

// OpenBadgerEmpty returns a read-only Badger with no data and no
// directory (Badger's in-memory mode): the store of a folder that has
// none, for reading commands that must create nothing.
func OpenBadgerEmpty() (*Badger, error) {
	o := badgerOptions("").WithInMemory(true)
	db, err := badger.Open(o)
	if err != nil {
		return nil, fmt.Errorf("cas: open empty store: %w", err)
	}
	p := newPacks("")
	p.readOnly = true
	return &Badger{db: db, packs: p, scratch: newScratch(), readOnly: true}, nil
}

// HasRoom reports whether the file system of dir (or of its nearest
// existing ancestor) has more than a store's reserve free (see
// NoSpaceError).
func HasRoom(dir string) bool { return CheckRoom(dir, "") == nil }

// CheckRoom is HasRoom returning the *NoSpaceError (naming the store as
// name) when there is not.
func CheckRoom(dir, name string) error {
	if name == "" {
		name = dir
	}
	for {
		if _, err := os.Stat(dir); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return nil
		}
		dir = parent
	}
	return newSpaceGuard(dir, name).check(0)
}

// ownPresence is get without reading the value: whether the scratch (or
// a layer under it) has key, and whether it decides.
func (s *scratch) ownPresence(key []byte) (v []byte, found, known bool, err error) {
	s.mu.RLock()
	_, ok := s.vals[string(key)]
	gone := s.gone[string(key)]
	s.mu.RUnlock()
	if ok || gone || s.under == nil {
		return nil, ok, ok || gone, nil
	}
	return s.under.ownPresence(key)
}

// setPtr records whether key's value is a pack pointer. Caller holds mu.
func (s *scratch) setPtr(key string, ptr bool) {
	if ptr {
		if s.ptrs == nil {
			s.ptrs = map[string]bool{}
		}
		s.ptrs[key] = true
	} else {
		delete(s.ptrs, key)
	}
}
