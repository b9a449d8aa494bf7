package cas

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"syscall"
	"unsafe"

	"github.com/dgraph-io/badger/v4"
	"github.com/dgraph-io/badger/v4/skl"
)

// A write-mode Badger on a disk that filled while it was open (see "Full
// disks" in the package doc).
//
// Badger's Close writes its memtable out into a level-0 table through a
// mmap of a sparse file: on a full disk that is a SIGBUS. Badger has no
// option to skip it, so when the flush cannot fit, guardClose takes the
// memtable out of the database (its unexported field) before Close. The
// memtable's write-ahead log, synced first, stays in its .mem file, and
// the next write-mode open replays it: nothing is lost. A read-only open
// then needs that repair first, as after a crash (OpenBadger does it).
// The map and descriptor of that .mem file stay until the process ends.

// guardClose readies b's database, open for writing, for Close on a disk
// with less than the reserve free. It drops the level-0 merge at Close
// and, when even the flush cannot fit, the flush.
func (b *Badger) guardClose() {
	if b.space == nil {
		return
	}
	free, ok := freeSpace(b.dir)
	if !ok || free >= b.space.reserve {
		return
	}
	mem, ok := memtableBytes(b.db)
	if !ok {
		return // another Badger: its Close runs as it is
	}
	setBadgerField(b.db, "opt.CompactL0OnClose", false)
	if mem == 0 || free >= flushNeed(mem) {
		return
	}
	if err := b.db.Sync(); err != nil {
		return // the log is not durable: flushing is the only chance
	}
	dropMemtable(b.db)
}

// flushNeed bounds the disk space the flush of a memtable of mem bytes
// takes: its table, index and bloom filter are smaller than its arena.
func flushNeed(mem int64) int64 { return 2*mem + 1<<20 }

// badgerField returns the unexported field at path (dot separated) of
// db, settable, or an invalid Value when Badger has no such field.
func badgerField(db *badger.DB, path string) reflect.Value {
	v := reflect.ValueOf(db).Elem()
	for _, name := range strings.Split(path, ".") {
		if v.Kind() == reflect.Pointer {
			if v.IsNil() {
				return reflect.Value{}
			}
			v = v.Elem()
		}
		if v.Kind() != reflect.Struct {
			return reflect.Value{}
		}
		v = v.FieldByName(name)
		if !v.IsValid() {
			return v
		}
		v = reflect.NewAt(v.Type(), unsafe.Pointer(v.UnsafeAddr())).Elem()
	}
	return v
}

// setBadgerField sets the bool field at path of db, if it has one.
func setBadgerField(db *badger.DB, path string, val bool) {
	if f := badgerField(db, path); f.IsValid() && f.Kind() == reflect.Bool {
		f.SetBool(val)
	}
}

// badgerLock returns db's lock over its memtables, or nil.
func badgerLock(db *badger.DB) *sync.RWMutex {
	f := badgerField(db, "lock")
	if !f.IsValid() || f.Type() != reflect.TypeFor[sync.RWMutex]() {
		return nil
	}
	return f.Addr().Interface().(*sync.RWMutex)
}

// memtableBytes returns the size of db's active memtable (0 if empty);
// ok is false when this Badger does not have the fields it reads.
func memtableBytes(db *badger.DB) (n int64, ok bool) {
	mu := badgerLock(db)
	if mu == nil {
		return 0, false
	}
	mu.RLock()
	defer mu.RUnlock()
	sl := badgerField(db, "mt.sl")
	if !sl.IsValid() || sl.Type() != reflect.TypeFor[*skl.Skiplist]() {
		return 0, false
	}
	s := sl.Interface().(*skl.Skiplist)
	if s == nil || s.Empty() {
		return 0, true
	}
	return s.MemSize(), true
}

// dropMemtable takes db's active memtable out, so that Close neither
// flushes nor deletes it (see guardClose). No write may follow.
func dropMemtable(db *badger.DB) bool {
	mu := badgerLock(db)
	mt := badgerField(db, "mt")
	if mu == nil || !mt.IsValid() || mt.Kind() != reflect.Pointer {
		return false
	}
	mu.Lock()
	mt.SetZero()
	mu.Unlock()
	return true
}

// prepareMemtables allocates the blocks of the memtable files of the
// database in dir, just opened for writing, so that writing them never
// finds the disk full. An ENOSPC is a *NoSpaceError: nothing was written.
// Where blocks cannot be allocated ahead (see preallocate) it does
// nothing.
func prepareMemtables(dir, name string) error {
	mems, err := filepath.Glob(filepath.Join(dir, "*.mem"))
	if err != nil {
		return nil
	}
	for _, p := range mems {
		f, err := os.OpenFile(p, os.O_RDWR, 0)
		if err != nil {
			continue // gone since the listing: Badger flushed it
		}
		fi, err := f.Stat()
		if err == nil && fi.Size() > 0 {
			// An empty log (a writer killed as it made it) has no
			// blocks to allocate: fallocate refuses a length of 0.
			err = preallocate(f, 0, fi.Size())
		}
		f.Close()
		if errors.Is(err, errNoPrealloc) {
			return nil
		}
		// Only a full disk stops the command: allocating ahead is a
		// guard, and any other refusal leaves Badger as it was.
		if errors.Is(err, syscall.ENOSPC) {
			return fmt.Errorf("cas: allocate %s: %w", p, wrapNoSpaceNamed(dir, name, err))
		}
	}
	return nil
}

// hasMemtables reports whether the database in dir has a memtable file:
// one that a write-mode Close did not remove (see guardClose), or that a
// crash left.
func hasMemtables(dir string) bool {
	mems, _ := filepath.Glob(filepath.Join(dir, "*.mem"))
	return len(mems) > 0
}
