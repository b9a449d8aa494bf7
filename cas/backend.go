package cas

import (
	"bytes"
	"context"
	"errors"
	"sort"
	"sync"
	"sync/atomic"
)

// Sentinel errors callers branch on.
var (
	// ErrNotFound: the key or blob is not in the store.
	ErrNotFound = errors.New("cas: not found")
	// ErrCorrupt: stored bytes do not hash to their address, or a stored
	// record cannot be decoded.
	ErrCorrupt = errors.New("cas: corrupt data")
	// ErrBusy: another process holds the store past the lock wait.
	ErrBusy = errors.New("cas: store busy")
	// ErrClosed: the backend was used after Close.
	ErrClosed = errors.New("cas: store closed")
)

// Entry is one key/value pair written to a Backend.
type Entry struct {
	Key, Value []byte
}

// Backend is the ordered key/value store underneath a Store. Badger is the
// durable implementation; Memory serves tests and embedders that want no
// disk. Implementations are safe for concurrent use.
type Backend interface {
	// Get returns a copy of the value of key, or ErrNotFound.
	Get(ctx context.Context, key []byte) ([]byte, error)
	// Has reports whether key is present.
	Has(ctx context.Context, key []byte) (bool, error)
	// Set writes entries all-or-nothing. Meant for small metadata updates.
	Set(ctx context.Context, entries ...Entry) error
	// Delete removes keys all-or-nothing; absent keys are not an error.
	Delete(ctx context.Context, keys ...[]byte) error
	// Update deletes keys and writes entries in one all-or-nothing
	// transaction (deletes first, so an entry may re-create a deleted key).
	Update(ctx context.Context, entries []Entry, deletes [][]byte) error
	// NewBatch starts a bulk writer for many entries. A batch is not
	// atomic: after a crash any subset of its entries may be present.
	NewBatch() Batch
	// Scan calls fn for every key with the prefix, in key order. The
	// slices passed to fn are only valid during the call. With keysOnly,
	// value is nil.
	Scan(ctx context.Context, prefix []byte, keysOnly bool, fn func(key, value []byte) error) error
	// Sync makes every write so far durable.
	Sync() error
	// Close releases the backend.
	Close() error
}

// Batch is a bulk writer returned by Backend.NewBatch. Put may be called
// from several goroutines; Flush waits for every Put to be written.
// Flush or Cancel ends the batch: later Puts fail. Put may keep key and
// value until Flush, so callers must not modify them before that.
type Batch interface {
	Put(key, value []byte) error
	Flush() error
	Cancel()
}

// Memory is an in-memory Backend.
type Memory struct {
	mu     sync.RWMutex
	m      map[string][]byte
	closed bool
}

// NewMemory returns an empty in-memory backend.
func NewMemory() *Memory { return &Memory{m: make(map[string][]byte)} }

func (m *Memory) check(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if m.closed {
		return ErrClosed
	}
	return nil
}

// Get implements Backend.
func (m *Memory) Get(ctx context.Context, key []byte) ([]byte, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if err := m.check(ctx); err != nil {
		return nil, err
	}
	v, ok := m.m[string(key)]
	if !ok {
		return nil, ErrNotFound
	}
	return bytes.Clone(v), nil
}

// Has implements Backend.
func (m *Memory) Has(ctx context.Context, key []byte) (bool, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if err := m.check(ctx); err != nil {
		return false, err
	}
	_, ok := m.m[string(key)]
	return ok, nil
}

// Set implements Backend.
func (m *Memory) Set(ctx context.Context, entries ...Entry) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.check(ctx); err != nil {
		return err
	}
	for _, e := range entries {
		m.m[string(e.Key)] = bytes.Clone(e.Value)
	}
	return nil
}

// Delete implements Backend.
func (m *Memory) Delete(ctx context.Context, keys ...[]byte) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.check(ctx); err != nil {
		return err
	}
	for _, k := range keys {
		delete(m.m, string(k))
	}
	return nil
}

// Update implements Backend.
func (m *Memory) Update(ctx context.Context, entries []Entry, deletes [][]byte) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.check(ctx); err != nil {
		return err
	}
	for _, k := range deletes {
		delete(m.m, string(k))
	}
	for _, e := range entries {
		m.m[string(e.Key)] = bytes.Clone(e.Value)
	}
	return nil
}

// Scan implements Backend.
func (m *Memory) Scan(ctx context.Context, prefix []byte, keysOnly bool, fn func(key, value []byte) error) error {
	m.mu.RLock()
	if err := m.check(ctx); err != nil {
		m.mu.RUnlock()
		return err
	}
	var keys []string
	for k := range m.m {
		if len(k) >= len(prefix) && k[:len(prefix)] == string(prefix) {
			keys = append(keys, k)
		}
	}
	m.mu.RUnlock()
	sort.Strings(keys)
	for _, k := range keys {
		if err := ctx.Err(); err != nil {
			return err
		}
		m.mu.RLock()
		v, ok := m.m[k]
		m.mu.RUnlock()
		if !ok {
			continue
		}
		if keysOnly {
			v = nil
		}
		if err := fn([]byte(k), v); err != nil {
			return err
		}
	}
	return nil
}

// Sync implements Backend; memory has nothing to sync.
func (m *Memory) Sync() error {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.closed {
		return ErrClosed
	}
	return nil
}

// Close implements Backend.
func (m *Memory) Close() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.closed = true
	return nil
}

// NewBatch implements Backend.
func (m *Memory) NewBatch() Batch { return &memBatch{m: m} }

// errBatchDone: Put or Flush on a batch after its Flush or Cancel, as
// Badger's WriteBatch refuses them.
var errBatchDone = errors.New("cas: batch already flushed or cancelled")

type memBatch struct {
	m    *Memory
	done atomic.Bool // set by Flush and Cancel
}

func (b *memBatch) Put(key, value []byte) error {
	if b.done.Load() {
		return errBatchDone
	}
	return b.m.Set(context.Background(), Entry{Key: key, Value: value})
}

// putCopy implements copyPutter: Set copies the value.
func (b *memBatch) putCopy(key, value []byte) error { return b.Put(key, value) }

func (b *memBatch) Flush() error {
	if b.done.Swap(true) {
		return errBatchDone
	}
	return b.m.Sync()
}

func (b *memBatch) Cancel() { b.done.Store(true) }
