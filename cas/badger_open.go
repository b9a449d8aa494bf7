package cas

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/dgraph-io/badger/v4"
)

// Opening a Badger store: the wait for another holder, and how Badger's
// failures are told apart (see "The lock and ErrBusy" in doc.go).

// needsRecovery recognises, by their text, Badger's read-only open
// failures that a write-mode open repairs.
func needsRecovery(err error) bool {
	msg := err.Error()
	return strings.Contains(msg, "Log truncate required") || strings.Contains(msg, "error while truncation") || isTornMemtable(err)
}

// errDirLocked: another process holds the directory lock (lockDir).
var errDirLocked = errors.New("cas: directory locked")

func openBadger(ctx context.Context, dir string, o BadgerOptions) (*Badger, error) {
	var guard *spaceGuard
	if !o.ReadOnly {
		guard = newSpaceGuard(dir, o.Name)
		if err := guard.check(0); err != nil {
			return nil, err
		}
	}
	deferred := false
	if o.Deferred && !o.ReadOnly && canLockDir {
		_, err := os.Stat(filepath.Join(dir, manifestName))
		deferred = err == nil // a new database is created in write mode
	}
	deadline := time.Now().Add(o.LockWait)
	waited, tries := false, 0
	var freed <-chan struct{} // closed when the holder lets go (lockFreed)
	stop := make(chan struct{})
	defer close(stop)
	for {
		var b *Badger
		var err error
		if deferred {
			b, err = tryDeferred(dir, guard, o)
		} else {
			b, err = tryOpen(dir, guard, o, nil)
		}
		if err == nil {
			return b, nil
		}
		if !errors.Is(err, errDirLocked) && !isLockError(err) {
			return nil, err
		}
		holder := readHolder(dir)
		if o.StopWaiting != nil && o.StopWaiting() {
			return nil, fmt.Errorf("%w: %s is held by %s", ErrBusy, dir, holder)
		}
		// Short pauses first (most holders are commands about to exit),
		// then 20-80 ms, randomised so that waiters spread; a wait ends
		// sooner when the holder lets go of Badger's lock (lockFreed).
		// OnWait is told once the short pauses are over (or the wait
		// is).
		over := time.Now().After(deadline)
		pause := time.Duration(20+rand.IntN(60)) * time.Millisecond
		if tries < shortPauses {
			pause = time.Duration(2<<tries) * time.Millisecond
		}
		if !waited && o.OnWait != nil && (tries >= shortPauses || over) && o.LockWait > 0 {
			o.OnWait(holder)
			waited = true
		}
		if over {
			return nil, fmt.Errorf("%w: %s is held by %s", ErrBusy, dir, holder)
		}
		tries++
		if freed == nil {
			freed = lockFreed(dir, o.ReadOnly, stop)
		}
		t := time.NewTimer(pause)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, fmt.Errorf("cas: open store %s: %w", dir, ctx.Err())
		case <-freed:
			freed = nil // the holder let go: try again now
		case <-t.C:
		}
		t.Stop()
	}
}

// tryDeferred takes the directory lock and opens the store deferred
// (deferred.go); errDirLocked when another process holds the lock. A
// read-only open that needs the repair of a write-mode open gets one,
// under the same lock, and the store is then an ordinary writable one.
func tryDeferred(dir string, guard *spaceGuard, o BadgerOptions) (*Badger, error) {
	lock, err := lockDir(dir)
	if err != nil {
		return nil, err
	}
	if err := precheck(dir); err != nil {
		lock.Close()
		return nil, err
	}
	b, ok, err := openDeferred(dir, lock, guard, o.Holder, o.Salvage)
	if err != nil {
		lock.Close()
		return nil, err
	}
	if ok {
		return b, nil
	}
	b, err = tryOpen(dir, guard, o, lock)
	if err != nil {
		lock.Close()
	}
	return b, err
}

// tryOpen opens the store once (again at once if it finds the empty
// memtable file a crash left), folding the overlay log into a database
// opened for writing, or reading it into the scratch of one opened
// read-only. With lock (held by the caller), Badger takes no lock of its
// own. A writer without one takes the directory lock itself where it
// can: Reclaim closes and reopens the database, and Badger's own lock
// would go with the close.
func tryOpen(dir string, guard *spaceGuard, o BadgerOptions, lock *os.File) (*Badger, error) {
	if lock != nil || o.ReadOnly || !canLockDir {
		return openWith(dir, guard, o, lock)
	}
	lock, err := lockDir(dir)
	if err != nil {
		return nil, err
	}
	if err := precheck(dir); err != nil {
		lock.Close()
		return nil, err
	}
	b, err := openWith(dir, guard, o, lock)
	if err != nil {
		lock.Close()
	}
	return b, err
}

// openWith is tryOpen with the lock decided: Badger takes its own when
// lock is nil.
func openWith(dir string, guard *spaceGuard, o BadgerOptions, lock *os.File) (*Badger, error) {
	opts := badgerOptions(dir)
	opts.ReadOnly = o.ReadOnly
	opts.BypassLockGuard = lock != nil
	opts.CompactL0OnClose = !o.ReadOnly && l0Merge(dir)
	db, err := badger.Open(opts)
	if err != nil && isTornMemtable(err) {
		// A process killed while creating a memtable file leaves it
		// empty (dgraph-io/badger#2207); the failed open has sized it,
		// and it holds no data: opening again succeeds.
		db, err = badger.Open(opts)
	}
	if err != nil {
		if isLockError(err) {
			return nil, err
		}
		return nil, fmt.Errorf("cas: open store %s: %w", dir, wrapNoSpaceNamed(dir, o.Name, err))
	}
	if !o.ReadOnly {
		if err := prepareMemtables(dir, o.Name); err != nil {
			db.Close() // nothing written: its memtable is empty
			return nil, err
		}
	}
	b := &Badger{db: db, dir: dir, packs: newPacks(dir), space: guard, lock: lock}
	if o.ReadOnly {
		b.readOnly = true
		b.scratch = newScratch()
		b.scratch.unpack = b.unpack // the log's pointers into packs
		b.packs.readOnly = true
		_, err := readOverlay(dir, b.scratch, folded(db))
		if d := asLogDamage(err); d != nil {
			// A reader shows every frame that checks out and says
			// what is damaged (LogDamage).
			b.logDamage, err = d, nil
		}
		if err != nil && !errors.Is(err, errFolded) {
			db.Close()
			return nil, err
		}
		return b, nil
	}
	b.packs.space = guard
	if b.salvaged, err = foldOverlay(db, dir, b.packs, guard, o.Salvage); err != nil {
		db.Close()
		return nil, err
	}
	b.writeHolder(o.Holder)
	return b, nil
}

// isTornMemtable recognises Badger's failure to open an empty memtable
// file left by a crash; like the lock error, only by its text.
func isTornMemtable(err error) bool {
	return strings.Contains(err.Error(), "Create a new file")
}

// isLockError recognises Badger's directory-lock failure. Badger formats
// the underlying errno with %+v rather than %w, so only its text tells.
func isLockError(err error) bool {
	return strings.Contains(err.Error(), "Cannot acquire directory lock")
}

func (b *Badger) writeHolder(holder string) {
	if holder == "" {
		holder = "turnback"
	}
	note := fmt.Sprintf("%s (pid %d, since %s)\n", holder, os.Getpid(), time.Now().Format(time.RFC3339))
	// Best effort: the note only improves the busy message.
	p := holderPath(b.dir)
	if err := os.WriteFile(p, []byte(note), 0o600); errors.Is(err, os.ErrNotExist) {
		if os.Mkdir(filepath.Dir(p), 0o700) == nil {
			_ = os.WriteFile(p, []byte(note), 0o600)
		}
	}
}

// readHolder returns the holder note of the database in dir (see
// holderFile), or "another process".
func readHolder(dir string) string {
	for _, p := range []string{holderPath(dir), filepath.Join(dir, holderFile)} {
		if data, err := os.ReadFile(p); err == nil && len(data) > 0 {
			return strings.TrimSpace(string(data))
		}
	}
	return "another process"
}
