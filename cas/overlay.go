package cas

// The overlay log: the records a command with little to write commits
// without opening Badger for writing (see "The overlay log" in doc.go).

import (
	"bytes"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"github.com/dgraph-io/badger/v4"
)

// overlayName is the overlay log's file in the database directory.
const overlayName = "turnback-overlay.log"

// overlayMagic opens the log: the format and its version. The log's id,
// random, follows it: a write-mode open that folds the log records that
// id in the database (foldedKey), so that a log whose removal a crash
// undid is never folded again over what was written since.
var overlayMagic = []byte("TBOVL02\n")

// Sizes of the log's header (magic and id) and of a frame's header: the
// body's length, its complement (a damaged length is told from a torn
// end) and the body's CRC-32C, little-endian uint32s.
const (
	overlayIDLen   = 16
	overlayHeader  = 8 + overlayIDLen
	frameHeader    = 12
	maxFrameLength = 1 << 30
)

// foldedKey is the database's record of the id of the last overlay log
// folded into it.
var foldedKey = []byte("o/folded")

// Limits of the log. A write of more than deferMax bytes (keys and
// values) opens Badger for writing instead, and so does one that would
// grow the log past overlayMax; a write-mode open folds the log into
// Badger and removes it. Every open reads the whole log, and a fold
// costs about one write-mode open and close: 10 to 20 ms. A turn of 27
// paths in large directories writes about 275 KB of stat cache records
// (a record per directory), so deferMax leaves it room. A status
// reading a log of 1 MB took no longer than one reading 120 KB (30
// alternated runs). Variables for tests.
var (
	deferMax   int64 = 512 << 10
	overlayMax int64 = 1 << 20
)

var crcTable = crc32.MakeTable(crc32.Castagnoli)

// errOverlay marks a damaged overlay log (wrapped with ErrDamaged).
var errOverlay = errors.New("overlay log")

// overlayRead is what readOverlay found.
type overlayRead struct {
	present     bool   // a log file is there
	id          []byte // nil: its creation was cut short
	valid, size int64  // the valid prefix and the file's size
	frames      int    // frames that check out
}

// readOverlay reads the overlay log of the database in dir into s (nil:
// only check it), unless skip says its id was folded already.
func readOverlay(dir string, s *scratch, skip func(id []byte) bool) (overlayRead, error) {
	path := filepath.Join(dir, overlayName)
	data, err := readLog(path)
	if errors.Is(err, os.ErrNotExist) {
		return overlayRead{}, nil
	}
	if d := asLogDamage(err); d != nil {
		d.Path = path
		return overlayRead{present: true, size: d.Damaged[0].Length}, d
	}
	if err != nil {
		return overlayRead{}, fmt.Errorf("cas: read %s: %w", path, err)
	}
	r := overlayRead{present: true, size: int64(len(data))}
	if len(data) >= overlayHeader && bytes.Equal(data[:len(overlayMagic)], overlayMagic) && skip != nil && skip(data[len(overlayMagic):overlayHeader]) {
		r.id = bytes.Clone(data[len(overlayMagic):overlayHeader])
		return r, errFolded
	}
	r.id, r.valid, err = parseOverlay(data, func(ops []overlayOp) {
		r.frames++
		if s != nil {
			s.applyShared(ops)
		}
	})
	if d := asLogDamage(err); d != nil {
		// Damage: every frame that checks out was read; the caller
		// decides (a reader goes on, a writer refuses or salvages).
		d.Path = path
		return r, d
	}
	if err != nil {
		return overlayRead{}, fmt.Errorf("cas: %s: %w", path, err)
	}
	return r, nil
}

// overlayReadMax bounds the log a command reads into memory. turnback
// never writes one past overlayMax and a frame of deferMax; a larger
// file, or one that is not a regular file, is damage and is not read.
const overlayReadMax = 64 << 20

// readLog returns the content of the log at path, or a LogDamageError
// naming all of it when it is not a regular file or is larger than
// overlayReadMax: a hostile store's log, a symlink to /dev/zero or a
// fifo must not exhaust memory or hang the command.
func readLog(path string) ([]byte, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	whole := func(n int64, why string) error {
		return &LogDamageError{Damaged: []LogRange{{0, n, why}}}
	}
	if !fi.Mode().IsRegular() {
		return nil, whole(0, "not a regular file")
	}
	if fi.Size() > overlayReadMax {
		return nil, whole(fi.Size(), "larger than any log turnback writes")
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := readAllSized(io.LimitReader(f, overlayReadMax+1), fi.Size())
	if err != nil {
		return nil, err
	}
	if len(data) > overlayReadMax {
		return nil, whole(int64(len(data)), "larger than any log turnback writes")
	}
	return data, nil
}

// readAllSized is io.ReadAll into a buffer sized for size bytes first:
// io.ReadAll's doubling from 512 bytes copied and faulted in about
// twice the log, a millisecond per command for a log of 1 MiB. A file
// that grew since its size was taken still reads whole.
func readAllSized(r io.Reader, size int64) ([]byte, error) {
	data := make([]byte, 0, size+512)
	for {
		if len(data) == cap(data) {
			data = append(data, 0)[:len(data)]
		}
		n, err := r.Read(data[len(data):cap(data)])
		data = data[:len(data)+n]
		if err == io.EOF {
			return data, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// errFolded: readOverlay found a log already folded into the database.
var errFolded = errors.New("cas: overlay log folded already")

// foldedID returns the id of the last log folded into db (nil: none).
func foldedID(db *badger.DB) []byte {
	var id []byte
	_ = db.View(func(txn *badger.Txn) error {
		item, err := txn.Get(foldedKey)
		if err != nil {
			return err
		}
		id, err = item.ValueCopy(nil)
		return err
	})
	return id
}

// folded returns readOverlay's skip for db.
func folded(db *badger.DB) func(id []byte) bool {
	return func(id []byte) bool {
		f := foldedID(db)
		return f != nil && bytes.Equal(f, id)
	}
}

// apply writes the records of one frame into the scratch (copies of
// their values).
func (s *scratch) apply(ops []overlayOp) {
	for i := range ops {
		if !ops[i].del {
			ops[i].value = bytes.Clone(ops[i].value)
		}
	}
	s.applyShared(ops)
}

// applyShared is apply keeping the values themselves, which the caller
// never changes (a log read whole into a buffer of its own).
func (s *scratch) applyShared(ops []overlayOp) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, op := range ops {
		k := string(op.key)
		if op.del {
			if old, ok := s.vals[k]; ok {
				s.bytes -= int64(len(k) + len(old))
			}
			delete(s.vals, k)
			delete(s.packed, k)
			delete(s.ptrs, k)
			s.gone[k] = true
			continue
		}
		s.bytes += int64(len(op.key) + len(op.value) - len(s.vals[k]))
		s.vals[k] = op.value
		delete(s.gone, k)
		s.setPacked(k, op.pack)
		s.setPtr(k, op.ptr)
	}
}

// overlayFile is the open log a deferred store appends to.
type overlayFile struct {
	dir    string
	f      *os.File // nil until the first append
	size   int64    // valid length (0: no file yet)
	id     []byte   // the log's id (set by the append that creates it)
	broken bool     // a failed append could not be cut back
	frames int      // frames the log holds
	// reserved: the file's blocks are allocated up to here, for frames
	// until Release (reserve.go);
	// fresh: reserve created the file, whose directory the first append
	// syncs.
	reserved int64
	fresh    bool
}

// open opens the log's file for appending, creating it if need be.
func (o *overlayFile) open() error {
	if o.f != nil {
		return nil
	}
	path := filepath.Join(o.dir, overlayName)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("cas: open %s: %w", path, err)
	}
	o.f, o.fresh = f, o.size == 0
	return nil
}

// cut makes the log end at its valid length, dropping a torn end so that
// the next frame follows the last committed one.
func (o *overlayFile) cut(size int64) error {
	path := filepath.Join(o.dir, overlayName)
	if size == 0 {
		if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("cas: remove torn %s: %w", path, err)
		}
		return nil
	}
	if err := os.Truncate(path, size); err != nil {
		return fmt.Errorf("cas: cut torn end of %s: %w", path, err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return fmt.Errorf("cas: cut torn end of %s: %w", path, err)
	}
	defer f.Close()
	if err := f.Sync(); err != nil {
		return fmt.Errorf("cas: cut torn end of %s: %w", path, err)
	}
	return nil
}

// append writes frame at the end of the log and syncs it (and the
// directory, when it created the file). On failure it cuts the log back
// to its previous length, so that a frame whose write failed is never
// read as committed.
func (o *overlayFile) append(frame []byte) error {
	path := filepath.Join(o.dir, overlayName)
	if err := fault("overlay", path); err != nil {
		return fmt.Errorf("cas: append to %s: %w", path, err)
	}
	if err := o.open(); err != nil {
		return err
	}
	created := o.fresh
	data := frame
	if o.size == 0 {
		var err error
		if o.id, err = newLogID(time.Now()); err != nil {
			return fmt.Errorf("cas: append to %s: %w", path, err)
		}
		data = append(append(bytes.Clone(overlayMagic), o.id...), frame...)
	}
	_, err := o.f.WriteAt(data, o.size)
	if err == nil {
		err = fault("overlaysync", path)
	}
	if err == nil {
		err = o.f.Sync()
	}
	if err == nil && created {
		err = syncDir(o.dir)
	}
	if err != nil {
		// The frame must not survive a failed append: cut it off, or
		// append nothing more (a later frame would commit it).
		if o.size == 0 {
			if rerr := os.Remove(path); rerr != nil && !errors.Is(rerr, os.ErrNotExist) {
				o.broken = true
			}
			_ = o.f.Close()
			o.f = nil
		} else if o.f.Truncate(o.size) != nil || o.f.Sync() != nil {
			o.broken = true
		}
		o.reserved = 0 // the cut gave its blocks back
		return fmt.Errorf("cas: append to %s: %w", path, err)
	}
	o.size += int64(len(data))
	o.frames++
	o.fresh = false
	return nil
}

func (o *overlayFile) close() {
	if o != nil && o.f != nil {
		_ = o.f.Close()
		o.f = nil
	}
}

// removeOverlay removes the log once its records are durable in Badger
// (its own fault point for the directory's sync, "overlaysyncdir": the
// fold does not depend on it).
func removeOverlay(dir string) error {
	path := filepath.Join(dir, overlayName)
	if err := os.Remove(path); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil
		}
		return fmt.Errorf("cas: remove %s: %w", path, err)
	}
	if runtime.GOOS == "windows" {
		return nil
	}
	if err := fault("overlaysyncdir", dir); err != nil {
		return fmt.Errorf("cas: remove %s: %w", path, err)
	}
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("cas: remove %s: %w", path, err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("cas: remove %s: %w", path, err)
	}
	return nil
}
