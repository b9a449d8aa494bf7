package cas

import (
	"errors"
	"fmt"
	"path/filepath"
)

// Reserving a commit (see Badger.Reserve).
//
// A restore commits its records after the files changed. A deferred
// store commits them as a frame of its overlay log; that append must not
// find the disk full. So before the restore the log's next bytes are
// allocated (fallocate, keeping the file's size): the append then writes
// into blocks the file already has. Where that cannot be done, the
// database is opened for writing before the restore, as Upgrade does.

// errNoPrealloc: the filesystem cannot allocate a file's blocks ahead.
var errNoPrealloc = errors.New("cas: cannot allocate ahead here")

// Reserve readies the store for work that must not fail half way and
// commits n bytes of keys and values after it: a deferred store commits
// the writes made so far (what the work's records will name must be
// durable before it starts), then allocates its overlay log's next
// bytes for n, or, where it cannot (past the log's bounds, or a
// filesystem that cannot allocate ahead), opens its database for
// writing now. Frames that fit the room are appended there, whatever
// the space left, until Release. A store open for writing does nothing.
// An error means the disk is (nearly) full or the store failed.
func (b *Badger) Reserve(n int64) error {
	b.swap.Lock()
	defer b.swap.Unlock()
	if b.closed {
		return ErrClosed
	}
	if b.def == nil {
		return nil // its writes are synced as they are flushed
	}
	if err := b.persistLocked(); err != nil {
		return err
	}
	d := b.def
	if d == nil {
		return nil // persisting opened the database for writing
	}
	need := frameBound(n) + d.log.headerLen()
	if n > deferMax || d.log.size+need > overlayMax || d.log.due() {
		return b.upgradeLocked()
	}
	if err := b.space.check(need); err != nil {
		return err
	}
	if err := d.log.reserve(need); err != nil {
		if errors.Is(err, errNoPrealloc) {
			return b.upgradeLocked()
		}
		return wrapNoSpaceNamed(b.dir, "", err)
	}
	return nil
}

// Release ends a reservation (see Reserve): later frames are appended
// by the usual rules, and the blocks it left past the log's end are
// given back.
func (b *Badger) Release() {
	b.swap.Lock()
	defer b.swap.Unlock()
	if d := b.def; d != nil {
		if d.log.room() > 0 && d.log.f != nil {
			_ = d.log.f.Truncate(d.log.size) // frees the blocks left past the end
		}
		d.log.reserved = 0
	}
}

// frameBound bounds the frame whose keys and values take n bytes: an op
// takes at most 21 bytes more than its key and value, so twice n holds
// while the ops average 21 bytes or more. (A restore's commit is a few
// dozen records, most of them keyed by 32-byte hashes, and its n has a
// pad of 16 KiB: see commitSize.)
func frameBound(n int64) int64 { return frameHeader + 10 + 2*n }

// reserve allocates the log's next n bytes (its file created if need
// be, and its directory synced then), keeping its size.
func (o *overlayFile) reserve(n int64) error {
	path := filepath.Join(o.dir, overlayName)
	if err := fault("overlayreserve", path); err != nil {
		return fmt.Errorf("cas: reserve in %s: %w", path, err)
	}
	if err := o.open(); err != nil {
		return err
	}
	if err := preallocate(o.f, o.size, n); err != nil {
		return fmt.Errorf("cas: reserve in %s: %w", path, err)
	}
	o.reserved = o.size + n
	return nil
}

// room reports how many bytes past its end the log has allocated.
func (o *overlayFile) room() int64 { return max(o.reserved-o.size, 0) }

// headerLen is what the next append writes before its frame: the
// header, if the log has none yet.
func (o *overlayFile) headerLen() int64 {
	if o.size == 0 {
		return overlayHeader
	}
	return 0
}
