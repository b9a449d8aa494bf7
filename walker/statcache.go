package walker

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
	"unsafe"

	"github.com/turnback/turnback/cas"
)

// fileStat is what the stat cache compares to decide that a file is
// unchanged without reading it.
type fileStat struct {
	size  int64
	mtime int64 // ns since the epoch
	ctime int64 // ns since the epoch; 0 where the platform has none
	ino   uint64
	mode  uint32 // fs.FileMode bits, type included
}

// cacheEntry is one file of a directory record.
type cacheEntry struct {
	name string
	st   fileStat
	hash cas.Hash
	// stored: the content is in the store (false for a file over the
	// size limit, which is hashed but not stored).
	stored bool
}

// dirRecord is the stat cache of one directory: the files whose content
// hash can be trusted while their stat data stays the same, and the
// directory's tree as the capture that wrote the record made it.
type dirRecord struct {
	entries []cacheEntry // sorted by name
	// tree is the hash of the directory's tree that capture computed
	// (zero: not known, as in a record from an older version or one a
	// restore started); subs are that tree's subdirectory entries,
	// sorted by name. A capture whose previous snapshot holds exactly
	// this tree here reads what it needs of it from subs instead of
	// loading it (see prevDir): subs are taken from the entries the hash
	// was computed over, so they say what that tree says.
	tree cas.Hash
	subs []subEntry
	// listed: the record also says which names the directory held
	// when its stat was lst (see listing.go): its entries', its subs'
	// and extra's (sorted), each once. Only with a tree.
	listed bool
	lst    dirStat
	extra  []string
}

// subEntry is a subdirectory entry of a dirRecord's tree.
type subEntry struct {
	name       string
	hash       cas.Hash
	uncaptured bool
	files      int64
}

const (
	cachePrefix  = "s/"
	cacheVersion = 2
	// cacheVersionTree: a cacheVersion record followed by its tree
	// hash and subdirectory entries.
	cacheVersionTree = 3
	// racyWindow and coarseRacyWindow bound how close to the start of a
	// capture a file may have changed and still be trusted by the next
	// capture. Timestamps come from a coarse kernel clock (up to a few ms
	// behind the wall clock); filesystems without sub-second timestamps
	// need the wider window.
	racyWindow       = 100 * time.Millisecond
	coarseRacyWindow = 2 * time.Second
	// localRacyWindow is racyWindow on a local Linux filesystem (see
	// fsTraits). Its times come from the kernel's coarse clock, at most
	// one tick (10 ms at the lowest HZ) behind the wall clock. A change
	// after a capture's start then gets a later ctime than any older
	// than this window. See docs/design.md, "The stat cache".
	localRacyWindow = 20 * time.Millisecond
)

// StatCache maps work-tree paths to the stat data and content hash seen
// by the last capture (or restore) that wrote them. It is a hint: a
// missing or undecodable record only costs a re-read.
type StatCache struct {
	b cas.Backend
}

// NewStatCache returns the stat cache kept in b.
func NewStatCache(b cas.Backend) *StatCache { return &StatCache{b: b} }

func cacheKey(dir string) []byte { return []byte(cachePrefix + dir) }

func (c *StatCache) load(ctx context.Context, dir string, buf []cacheEntry) *dirRecord {
	rec := &dirRecord{entries: buf}
	if !c.loadInto(ctx, dir, rec, nil) {
		return nil
	}
	return rec
}

// loadInto decodes the record of dir into rec with l's arrays (see
// decodeRecordReuse) and reports whether there was one that decoded.
func (c *StatCache) loadInto(ctx context.Context, dir string, rec *dirRecord, l *arrays) bool {
	if c == nil {
		return false
	}
	data, err := c.b.Get(ctx, cacheKey(dir))
	if err != nil {
		return false
	}
	return decodeRecordReuse(string(data), rec, l) == nil
}

// preloadLimit bounds the bytes of records preload holds at once; the
// records past it are read one at a time.
var preloadLimit = 32 << 20

var errPreloadFull = errors.New("walker: stat cache preload full")

// cacheRecords are the stat cache's records read in one scan at the start
// of a full capture (one pass over the store instead of one lookup per
// directory). The scan runs beside the walk: a directory's record is
// handed out once the scan has passed its key (the walk waits for that
// only when it gets there first), then forgotten.
type cacheRecords struct {
	c  *StatCache
	mu sync.Mutex
	// more is signalled (on mu) as the scan goes on, when someone waits,
	// and when it ends.
	more    *sync.Cond
	waiting int
	// recs are the records scanned so far, in key order; one handed out
	// has its data emptied. While the scan runs, those up to last (if
	// scanned) are in it. done: the scan ended; complete: it read every
	// record; otherwise a directory after last (or any, if it failed) is
	// looked up by itself.
	recs     []scannedRecord
	done     bool
	complete bool
	scanned  bool
	last     string
	stop     context.CancelFunc
	finished chan struct{}
	// chunk is where the scan copies records (see keep). Only the scan
	// uses it.
	chunk []byte
}

// scannedRecord is a directory's record as the scan read it.
type scannedRecord struct{ dir, data string }

// preloadChunk is the size of the arrays the scan copies records into.
// A string per record, and a map of them, cost about 100 of the 320 page
// faults of the preload of the Go tree: the allocator's spans of many
// size classes, and the map's tables as it grew.
const preloadChunk = 64 << 10

// keep returns a copy of b: in the scan's current chunk, or a new one
// when b does not fit there. A chunk's bytes are written once, before
// the string that holds them is made, and never again. A record over
// a quarter of a chunk is copied by itself.
func (r *cacheRecords) keep(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	if len(b) > preloadChunk/4 {
		return string(b)
	}
	if cap(r.chunk)-len(r.chunk) < len(b) {
		r.chunk = make([]byte, 0, preloadChunk)
	}
	at := len(r.chunk)
	r.chunk = append(r.chunk, b...)
	return unsafe.String(&r.chunk[at], len(b))
}

// preload starts reading every record of the cache, or as many as
// preloadLimit allows; close ends it. A scan that fails leaves the
// records to be read one at a time.
func (c *StatCache) preload(ctx context.Context) *cacheRecords {
	if c == nil {
		return nil
	}
	ctx, cancel := context.WithCancel(ctx)
	r := &cacheRecords{c: c, stop: cancel, finished: make(chan struct{})}
	r.more = sync.NewCond(&r.mu)
	go func() {
		defer close(r.finished)
		size := 0
		err := c.b.Scan(ctx, []byte(cachePrefix), false, func(k, v []byte) error {
			if size += len(k) + len(v); size > preloadLimit {
				return errPreloadFull
			}
			// k and v are the scan's only during the call: the one copy
			// made.
			rec := scannedRecord{dir: r.keep(k[len(cachePrefix):]), data: r.keep(v)}
			r.mu.Lock()
			r.recs = append(r.recs, rec)
			r.last, r.scanned = rec.dir, true
			if r.waiting > 0 {
				r.more.Broadcast()
			}
			r.mu.Unlock()
			return nil
		})
		r.mu.Lock()
		defer r.mu.Unlock()
		r.done = true
		switch {
		case err == nil:
			r.complete = true
		case errors.Is(err, errPreloadFull):
		default:
			r.recs, r.scanned = nil, false
		}
		r.more.Broadcast()
	}()
	return r
}

// close stops the scan and waits for it.
func (r *cacheRecords) close() {
	if r != nil {
		r.stop()
		<-r.finished
	}
}

// load decodes the record of dir into rec with l's arrays (see
// decodeRecordReuse) and reports whether there was one that decoded.
func (r *cacheRecords) load(ctx context.Context, dir string, rec *dirRecord, l *arrays) bool {
	if r == nil {
		return false
	}
	r.mu.Lock()
	for !r.done && !(r.scanned && dir <= r.last) {
		r.waiting++
		r.more.Wait()
		r.waiting--
	}
	var data string
	i, ok := slices.BinarySearchFunc(r.recs, dir, func(e scannedRecord, dir string) int { return strings.Compare(e.dir, dir) })
	if ok {
		data, ok = r.recs[i].data, r.recs[i].data != ""
		r.recs[i].data = ""
	}
	known := r.complete || r.scanned && dir <= r.last
	r.mu.Unlock()
	if !ok {
		if known {
			return false
		}
		return r.c.loadInto(ctx, dir, rec, l)
	}
	return decodeRecordReuse(data, rec, l) == nil
}

func (r *dirRecord) lookup(name string) *cacheEntry {
	if r == nil {
		return nil
	}
	i := sort.Search(len(r.entries), func(i int) bool { return r.entries[i].name >= name })
	if i < len(r.entries) && r.entries[i].name == name {
		return &r.entries[i]
	}
	return nil
}

// lookupFrom is lookup for names asked in increasing order: *cur is
// where the previous one was looked for, and the search goes on from
// there (a listing and a record are both sorted by name). A name asked
// out of order is not found.
func (r *dirRecord) lookupFrom(name string, cur *int) *cacheEntry {
	if r == nil {
		return nil
	}
	// Equality first: it is the usual case, and cheaper to test than
	// order (lengths differ, or one memory compare).
	i := *cur
	for ; i < len(r.entries); i++ {
		if r.entries[i].name == name {
			*cur = i
			return &r.entries[i]
		}
		if r.entries[i].name > name {
			break
		}
	}
	*cur = i
	return nil
}

// trusted reports whether st was far enough from the capture start t0
// that a later change could not share its timestamps (git's "racily
// clean" rule). Entries that are not trusted are left out of the cache
// and so re-read next time. The wide window is for filesystems with
// whole-second timestamps: a whole-second mtime with a sub-second ctime
// only says the mtime was set (cp -a, tar), not that the clock is coarse.
func trusted(st fileStat, t0 time.Time) bool { return trustedWithin(st, t0, racyWindow) }

// trustedWithin is trusted with the window w for sub-second timestamps.
// Without a ctime (a platform that has none) it is never narrower than
// racyWindow: a narrow window rests on a ctime, which cannot be set back.
func trustedWithin(st fileStat, t0 time.Time, w time.Duration) bool {
	if st.ctime == 0 {
		w = max(w, racyWindow)
	}
	if st.mtime%int64(time.Second) == 0 && st.ctime%int64(time.Second) == 0 {
		w = coarseRacyWindow
	}
	limit := t0.Add(-w).UnixNano()
	return st.mtime < limit && st.ctime < limit
}

// sub returns the subdirectory entry name of r's tree.
func (r *dirRecord) sub(name string) (subEntry, bool) {
	i := sort.Search(len(r.subs), func(i int) bool { return r.subs[i].name >= name })
	if i < len(r.subs) && r.subs[i].name == name {
		return r.subs[i], true
	}
	return subEntry{}, false
}

// sameRecord reports whether a and b hold the same entries (and so
// encode to the same bytes).
func sameRecord(a, b *dirRecord) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.tree == b.tree && slices.Equal(a.entries, b.entries) && slices.Equal(a.subs, b.subs) &&
		a.listed == b.listed && a.lst == b.lst && slices.Equal(a.extra, b.extra)
}

// Written describes a file a restore wrote, for Record.
type Written struct {
	Path string   // slash-separated, relative to the work tree
	Hash cas.Hash // content written
	Info fs.FileInfo
}

// Record teaches the cache files written outside a capture (by a
// restore), so the next capture need not read them again; at is when
// the files' stat data was taken (Record may run later). Files written
// too recently before at to be trusted are skipped (see trusted): a directory
// where none can be trusted (a small restore, just written) is left as
// it is, since the entries of the files replaced there can no longer
// match (another inode, another change time) and the next capture
// rewrites its record anyway.
func (c *StatCache) Record(ctx context.Context, files []Written, at time.Time) error {
	now := at
	byDir := map[string][]Written{}
	for _, f := range files {
		dir, _ := path.Split(f.Path)
		dir = path.Clean("/" + dir)[1:]
		byDir[dir] = append(byDir[dir], f)
	}
	for dir, fs := range byDir {
		if !slices.ContainsFunc(fs, func(f Written) bool { return trusted(statFunc(f.Info), now) }) {
			delete(byDir, dir)
		}
	}
	var sets []cas.Entry
	for dir, fs := range byDir {
		rec := c.load(ctx, dir, nil)
		if rec == nil {
			rec = &dirRecord{}
		}
		m := map[string]cacheEntry{}
		for _, e := range rec.entries {
			m[e.name] = e
		}
		for _, f := range fs {
			name := path.Base(f.Path)
			st := statFunc(f.Info)
			if trusted(st, now) {
				m[name] = cacheEntry{name: name, st: st, hash: f.Hash, stored: true}
			} else {
				delete(m, name)
			}
		}
		// The tree and its subdirectories describe the last capture's
		// tree, which the restore does not change: they stay.
		out := &dirRecord{tree: rec.tree, subs: rec.subs}
		for _, e := range m {
			out.entries = append(out.entries, e)
		}
		sort.Slice(out.entries, func(i, j int) bool { return out.entries[i].name < out.entries[j].name })
		sets = append(sets, cas.Entry{Key: cacheKey(dir), Value: encodeRecord(out)})
	}
	return c.write(ctx, sets)
}

// writeChunk bounds the records write sets at once (a Badger
// transaction holds about a megabyte).
const writeChunk = 512 << 10

// bulkRecords: a capture writing more records than this (a first
// capture of some 200,000 files or more) writes them through a batch.
var bulkRecords = 16 << 20 // a variable for tests

// write stores records as records (Set, a few hundred kilobytes at a
// time), not through a batch: a batch puts values of 256 bytes or more in
// pack files, and reading the cache back (preload) would then cost a
// read of a pack per record instead of one pass over the LSM tree. Past
// bulkRecords bytes, though, they do go through a batch, as blobs do:
// a hundred megabytes of records (a first capture of a million files)
// set into the LSM tree make Badger flush and compact tables the whole
// time they are written, which took the process's memory past 500 MB,
// most of it table builders and memory-mapped tables. The records need
// not be written all or nothing: each is a hint; a store opened
// read-only keeps none. The entries of records are cleared as they are
// written.
func (c *StatCache) write(ctx context.Context, records []cas.Entry) error {
	total := 0
	for _, r := range records {
		total += len(r.Key) + len(r.Value)
	}
	if total > bulkRecords {
		return c.writeBatch(records)
	}
	for len(records) > 0 {
		n, size := 0, 0
		for n < len(records) && (n == 0 || size+len(records[n].Key)+len(records[n].Value) <= writeChunk) && n < 1000 {
			size += len(records[n].Key) + len(records[n].Value)
			n++
		}
		if err := c.b.Set(ctx, records[:n]...); errors.Is(err, cas.ErrReadOnly) {
			return nil // a store opened read-only keeps nothing
		} else if err != nil {
			return err
		}
		// Written: let them go while the rest is written (a first
		// capture of a million files holds about 100 MB of records).
		clear(records[:n])
		records = records[n:]
	}
	return nil
}

// writeBatch writes records through a batch (see write), in key order:
// the order the next capture's preload reads them in.
func (c *StatCache) writeBatch(records []cas.Entry) error {
	slices.SortFunc(records, func(a, b cas.Entry) int { return bytes.Compare(a.Key, b.Key) })
	b := c.b.NewBatch()
	for i := range records {
		if err := b.Put(records[i].Key, records[i].Value); err != nil {
			b.Cancel()
			if errors.Is(err, cas.ErrReadOnly) {
				return nil
			}
			return err
		}
		records[i] = cas.Entry{}
	}
	if err := b.Flush(); err != nil && !errors.Is(err, cas.ErrReadOnly) {
		return err
	}
	return nil
}

// Hashes calls fn with the content hash of every file in the cache. A
// garbage collection must keep these: the next capture trusts the cache
// and will refer to them without reading the files.
// The tree hashes records name are not among them: a capture uses them
// only where they are its previous snapshot's trees, which gc keeps.
//
// A record Hashes cannot decode is deleted: this turnback never trusts
// it, but a newer one might read it and refer to content this gc does
// not keep.
func (c *StatCache) Hashes(ctx context.Context, fn func(cas.Hash) error) error {
	var unread [][]byte
	err := c.b.Scan(ctx, []byte(cachePrefix), false, func(k, v []byte) error {
		rec, err := decodeRecord(v)
		if err != nil {
			unread = append(unread, bytes.Clone(k))
			return nil
		}
		for _, e := range rec.entries {
			if !e.stored {
				continue
			}
			if err := fn(e.hash); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil || len(unread) == 0 {
		return err
	}
	if err := c.deleteKeys(ctx, unread); err != nil {
		return fmt.Errorf("walker: delete stat cache records it cannot read: %w", err)
	}
	return nil
}
