package cas

import (
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
)

// Pack files keep the large values of a Badger store out of its LSM tree
// (see "Pack files" in the package doc). A value written through a Batch
// whose size is at least packThreshold is appended to the current pack
// file; the LSM keeps, under the value's key, a pointer to it, marked by
// metaPacked in the entry's user meta byte.
//
// A pack file is a header (packMagic) followed by values back to back,
// nothing else: each pointer says where its value lies and carries its
// CRC-32C. Packs are only ever appended to, never rewritten: Reclaim
// copies the live values out of mostly dead packs and deletes them.

const (
	// packThreshold: values at least this long go to pack files.
	packThreshold = 256
	// packMagic starts every pack file.
	packMagic = "turnback pack 1\n"
	// packExt ends the name of a pack file (Badger ignores it).
	packExt = ".pack"
	// metaPacked marks, in Badger's user meta byte, an entry whose value
	// is a pack pointer.
	metaPacked byte = 1
	// packPointerTag starts every pack pointer. Old turnback versions
	// read it as a blob's codec byte and report an unknown codec.
	packPointerTag byte = 0xfe
	// packDirectWrite: values at least this long are written straight
	// to the file rather than through the buffer.
	packDirectWrite = 128 << 10
	// packBufSize bounds the write buffer.
	packBufSize = 1 << 20
)

// packTarget: a pack file that reaches this size is synced and closed,
// and the next value starts a new one. A variable for tests.
var packTarget int64 = 64 << 20

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// packs reads and appends the pack files of one store directory.
type packs struct {
	dir      string
	readOnly bool        // reads only (a read-only store)
	space    *spaceGuard // keeps Badger's reserve free; nil: not checked

	mu      sync.Mutex // guards the writer state below
	started bool       // the first open (which may reuse the newest pack) happened
	nextID  uint64     // id of the next new pack
	cur     *os.File   // pack being appended, nil when none is open
	curID   uint64
	curSize int64            // bytes in cur, buffered ones included
	synced  int64            // bytes of cur known durable (what a failure truncates it back to)
	buf     []byte           // written at the end of cur
	dirty   bool             // cur has bytes not yet fsynced
	created bool             // cur was created by this process and the directory not yet synced
	sealed  uint64           // every pack with an id below this is closed, and durable unless broken or syncing
	broken  map[uint64]error // packs abandoned after a failed write or sync
	syncing map[uint64]bool  // full packs being synced outside mu (see add)
	settled *sync.Cond       // on mu: signalled when a pack leaves syncing

	rmu     sync.RWMutex
	readers map[uint64]*packReader
}

// packReader is a pack file open for reading and the size it had when
// last looked at: packs only grow, so a value inside that size needs no
// fstat before its read.
type packReader struct {
	f    *os.File
	size atomic.Int64
}

func newPacks(dir string) *packs {
	p := &packs{dir: dir, readers: make(map[uint64]*packReader), broken: make(map[uint64]error), syncing: make(map[uint64]bool)}
	p.settled = sync.NewCond(&p.mu)
	return p
}

// open starts the pack to append to: the newest existing pack if it is
// the first open of this process and the pack has room, a new one
// otherwise. Caller holds p.mu.
func (p *packs) open() error {
	if !p.started {
		list, err := listPacks(p.dir)
		if err != nil {
			return fmt.Errorf("cas: list packs: %w", err)
		}
		if n := len(list); n > 0 && list[n-1].size == 0 {
			// An empty pack (a process that failed to write its header,
			// before this one removed such packs) names nothing.
			_ = os.Remove(filepath.Join(p.dir, packName(list[n-1].id)))
		}
		if n := len(list); n > 0 {
			p.nextID = list[n-1].id + 1
			last := list[n-1]
			if last.size >= int64(len(packMagic)) && last.size < packTarget/2 && p.validHeader(last.id) {
				f, err := createPack(filepath.Join(p.dir, packName(last.id)), false)
				if err == nil {
					p.started = true
					p.cur, p.curID, p.curSize = f, last.id, last.size
					p.synced = last.size
					p.created = false
					return nil
				}
			}
		} else {
			p.nextID = 1
		}
		p.started = true
	}
	id := p.nextID
	f, err := createPack(filepath.Join(p.dir, packName(id)), true)
	if err != nil {
		return fmt.Errorf("cas: create pack: %w", p.noSpace(err))
	}
	p.nextID = id + 1
	p.cur, p.curID, p.curSize, p.created = f, id, 0, true
	p.synced = 0
	p.buf = append(p.buf[:0], packMagic...)
	p.curSize = int64(len(packMagic))
	p.dirty = true
	return nil
}

func (p *packs) validHeader(id uint64) bool {
	f, err := os.Open(filepath.Join(p.dir, packName(id)))
	if err != nil {
		return false
	}
	defer f.Close()
	var h [len(packMagic)]byte
	_, err = io.ReadFull(f, h[:])
	return err == nil && string(h[:]) == packMagic
}

// add appends value to the current pack and returns where it lies. The
// value is not durable until sync (or a rotation) says so.
//
// A pack that reaches packTarget is rotated out: the next value starts a
// new pack, and the caller that filled it syncs and closes it after
// releasing mu, so that other writers go on meanwhile (with mu held,
// every writer waited for each 64 MiB fsync).
func (p *packs) add(value []byte) (packPtr, error) {
	crc := crc32.Checksum(value, castagnoli)
	p.mu.Lock()
	ptr, full, err := p.addLocked(value, crc)
	p.mu.Unlock()
	if err != nil {
		return packPtr{}, err
	}
	if full != nil {
		if err := p.settle(full); err != nil {
			return packPtr{}, err
		}
	}
	return ptr, nil
}

// syncFull syncs a full pack in settle. A variable for tests.
var syncFull = syncFile

// fullPack is a pack rotated out by addLocked, to be synced and closed.
type fullPack struct {
	f       *os.File
	id      uint64
	created bool // the directory entry is not yet synced
}

// addLocked appends value; when that fills the pack, it returns the pack
// for settle. Caller holds p.mu.
func (p *packs) addLocked(value []byte, crc uint32) (packPtr, *fullPack, error) {
	if p.readOnly {
		return packPtr{}, nil, fmt.Errorf("cas: write pack: store opened read-only")
	}
	if err := p.space.check(int64(len(value))); err != nil {
		if p.cur != nil && p.dirty {
			// Values appended since the last sync cannot be made durable
			// now: give their space back (see fail).
			return packPtr{}, nil, p.fail(err)
		}
		return packPtr{}, nil, err
	}
	if p.cur == nil {
		if err := p.open(); err != nil {
			return packPtr{}, nil, err
		}
	}
	ptr := packPtr{pack: p.curID, off: p.curSize, size: int64(len(value)), crc: crc}
	if len(value) >= packDirectWrite {
		if err := p.flushBuf(); err != nil {
			return packPtr{}, nil, err
		}
		if _, err := writeFile(p.cur, value); err != nil {
			return packPtr{}, nil, p.fail(err)
		}
	} else {
		p.buf = append(p.buf, value...)
		if len(p.buf) >= packBufSize {
			if err := p.flushBuf(); err != nil {
				return packPtr{}, nil, err
			}
		}
	}
	p.curSize += int64(len(value))
	p.dirty = true
	if p.curSize < packTarget {
		return ptr, nil, nil
	}
	if err := p.flushBuf(); err != nil {
		return packPtr{}, nil, err
	}
	full := &fullPack{f: p.cur, id: p.curID, created: p.created}
	p.syncing[full.id] = true
	p.sealed = full.id + 1
	p.cur = nil
	p.dirty, p.created = false, false
	return ptr, full, nil
}

// settle syncs and closes a full pack, without p.mu, and drops its pages
// from the page cache: a capture writes a pack once and does not read it
// back, and the pages would only push out the work tree's files, which
// the capture reads. If the sync fails the pack is broken (see fail).
func (p *packs) settle(full *fullPack) error {
	err := syncFull(full.f)
	if err == nil && full.created {
		err = syncDir(p.dir)
	}
	if err == nil {
		dropCache(full.f)
	}
	if cerr := full.f.Close(); err == nil {
		err = cerr
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.syncing, full.id)
	p.settled.Broadcast()
	if err != nil {
		err = fmt.Errorf("cas: write pack %s: %w", packName(full.id), p.noSpace(err))
		p.broken[full.id] = err
		if full.created {
			// Never synced: no committed pointer names it.
			_ = os.Remove(filepath.Join(p.dir, packName(full.id)))
		}
		return err
	}
	return nil
}

// waitSettled waits until no full pack is being synced. Caller holds
// p.mu.
func (p *packs) waitSettled() {
	for len(p.syncing) > 0 {
		p.settled.Wait()
	}
}

// fail abandons the current pack after a failed write or sync: values
// in it that were not synced before can never be vouched for, so it is
// marked broken (batches holding pointers into it fail) and the next
// value starts a new pack. Caller holds p.mu.
func (p *packs) fail(err error) error {
	err = fmt.Errorf("cas: write pack %s: %w", packName(p.curID), p.noSpace(err))
	if p.cur != nil {
		_ = p.cur.Close()
		name := filepath.Join(p.dir, packName(p.curID))
		if p.created {
			// Created by this process and never synced: no committed
			// pointer names it, and a failed attempt leaves no debris.
			_ = os.Remove(name)
		} else if p.synced > 0 {
			// Bytes past the last sync are named by no committed pointer
			// (pointers are written only once their values are synced):
			// on a full disk they are space the user needs back.
			_ = os.Truncate(name, p.synced)
		}
		p.broken[p.curID] = err
		p.sealed = p.curID + 1
		p.cur = nil
		p.buf = p.buf[:0]
		p.dirty, p.created = false, false
	}
	return err
}

// noSpace is wrapNoSpace for this store's packs.
func (p *packs) noSpace(err error) error {
	name := ""
	if p.space != nil {
		name = p.space.name
	}
	return wrapNoSpaceNamed(p.dir, name, err)
}

// errAbandoned breaks a pack whose unsynced values belong to a cancelled
// batch.
var errAbandoned = errors.New("cas: batch cancelled")

// abandon gives up the current pack if it holds unsynced values and its
// id is in ids (a cancelled batch's): they would otherwise be synced and
// kept as garbage by the next sync or Close; fail truncates or removes
// them instead. Another batch with unsynced values in it fails.
func (p *packs) abandon(ids map[uint64]struct{}) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, ok := ids[p.curID]; ok && p.cur != nil && p.dirty {
		_ = p.fail(errAbandoned)
	}
}

// flushBuf writes the buffer to the current pack. Caller holds p.mu.
func (p *packs) flushBuf() error {
	if len(p.buf) == 0 {
		return nil
	}
	if _, err := writeFile(p.cur, p.buf); err != nil {
		return p.fail(err)
	}
	p.buf = p.buf[:0]
	return nil
}

// syncLocked makes everything appended so far durable. Caller holds p.mu.
func (p *packs) syncLocked() error {
	if p.cur == nil || !p.dirty {
		return nil
	}
	if err := p.flushBuf(); err != nil {
		return err
	}
	if err := syncFile(p.cur); err != nil {
		return p.fail(err)
	}
	if p.created {
		if err := syncDir(p.dir); err != nil {
			return p.fail(err)
		}
		p.created = false
	}
	p.dirty = false
	p.synced = p.curSize
	return nil
}

// seal syncs and closes the current pack, once full packs being synced
// are: the next value starts a new pack. Caller holds p.mu.
func (p *packs) seal() error {
	p.waitSettled()
	if p.cur == nil {
		return nil
	}
	if err := p.syncLocked(); err != nil {
		return err
	}
	err := p.cur.Close()
	p.sealed = p.curID + 1
	p.cur = nil
	if err != nil {
		return p.fail(err)
	}
	return nil
}

// sync makes every value added so far durable, and returns the error of
// a pack abandoned since (see fail) for every id in ids that names one.
func (p *packs) sync(ids map[uint64]struct{}) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if err := p.syncLocked(); err != nil {
		return err
	}
	p.waitSettled()
	for id := range ids {
		if err := p.broken[id]; err != nil {
			return err
		}
	}
	return nil
}

// durable reports whether pack id is sealed and synced (so every value
// added to it is durable), or the error that made it broken.
func (p *packs) durable(id uint64) (bool, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if err := p.broken[id]; err != nil {
		return false, err
	}
	return id < p.sealed && !p.syncing[id], nil
}

// sealedBelow returns the id below which every pack is closed and synced
// (or broken).
func (p *packs) sealedBelow() uint64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	below := p.sealed
	for id := range p.syncing {
		below = min(below, id)
	}
	return below
}

// closeWriter syncs and closes the current pack. Later values start a
// new pack.
func (p *packs) closeWriter() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	err := p.seal()
	p.buf = nil
	return err
}

// startFresh seals the current pack and makes the next value start a new
// pack, never one that exists now (Reclaim may delete those).
func (p *packs) startFresh() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if err := p.seal(); err != nil {
		return err
	}
	list, err := listPacks(p.dir)
	if err != nil {
		return fmt.Errorf("cas: list packs: %w", err)
	}
	if n := len(list); n > 0 && list[n-1].id >= p.nextID {
		p.nextID = list[n-1].id + 1
	}
	if p.nextID == 0 {
		p.nextID = 1
	}
	p.started = true
	return nil
}

// close closes every file.
func (p *packs) close() error {
	err := p.closeWriter()
	p.rmu.Lock()
	defer p.rmu.Unlock()
	for id, r := range p.readers {
		_ = r.f.Close()
		delete(p.readers, id)
	}
	return err
}

// syncDir makes the directory's entries (a created or removed file)
// durable. Windows cannot sync a directory (NTFS journals its metadata).
func syncDir(dir string) error {
	if runtime.GOOS == "windows" {
		return nil
	}
	if err := fault("syncdir", dir); err != nil {
		return &os.PathError{Op: "sync", Path: dir, Err: err}
	}
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
