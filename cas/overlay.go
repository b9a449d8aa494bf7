package cas

// The overlay log: the records a command with little to write commits
// without opening Badger for writing (see "The overlay log" in doc.go).

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"

	"os"
	"path/filepath"
)

// overlayName is the overlay log's file in the database directory.
const overlayName = "turnback-overlay.log"

// overlayMagic opens the log: the format and its version.
var overlayMagic = []byte("TBOVL01\n")

// frameHeader is a frame's length and checksum (both little-endian
// uint32) before its body.
const frameHeader = 8

// Limits of the log. A write of more than deferMax bytes (keys and
// values) opens Badger for writing instead, and so does one that would
// grow the log past overlayMax; a write-mode open folds the log into
// Badger and removes it. Every open reads the whole log (a log of
// overlayMax in small frames takes a few ms), and a fold costs about one
// write-mode open and close. Variables for tests.
var (
	deferMax   int64 = 256 << 10
	overlayMax int64 = 512 << 10
)

var crcTable = crc32.MakeTable(crc32.Castagnoli)

// errOverlay marks a damaged overlay log (wrapped with ErrDamaged).
var errOverlay = errors.New("overlay log")

// overlayOp is one record of a frame: a write, or a delete (del). pack
// marks a write made through a batch (a blob, a tree): folded into a pack
// file when large, where a record's value stays in the LSM tree.
type overlayOp struct {
	key, value []byte
	del, pack  bool
}

// Kind bytes of a frame's records.
const (
	opWrite  = 0
	opDelete = 1
	opPack   = 2
)

// encodeFrame returns the frame of ops, header included.
func encodeFrame(ops []overlayOp) []byte {
	n := frameHeader + binary.MaxVarintLen64
	for _, op := range ops {
		n += 1 + 2*binary.MaxVarintLen64 + len(op.key) + len(op.value)
	}
	b := make([]byte, frameHeader, n)
	b = binary.AppendUvarint(b, uint64(len(ops)))
	for _, op := range ops {
		switch {
		case op.del:
			b = append(b, opDelete)
		case op.pack:
			b = append(b, opPack)
		default:
			b = append(b, opWrite)
		}
		b = binary.AppendUvarint(b, uint64(len(op.key)))
		b = append(b, op.key...)
		if !op.del {
			b = binary.AppendUvarint(b, uint64(len(op.value)))
			b = append(b, op.value...)
		}
	}
	binary.LittleEndian.PutUint32(b[0:4], uint32(len(b)-frameHeader))
	binary.LittleEndian.PutUint32(b[4:8], crc32.Checksum(b[frameHeader:], crcTable))
	return b
}

// decodeBody returns the records of a frame's body (its checksum
// already checked). Keys and values alias body.
func decodeBody(body []byte) ([]overlayOp, error) {
	count, k := binary.Uvarint(body)
	if k <= 0 || count > uint64(len(body)) {
		return nil, fmt.Errorf("%w: bad record count", errOverlay)
	}
	body = body[k:]
	ops := make([]overlayOp, 0, count)
	take := func() ([]byte, error) {
		n, k := binary.Uvarint(body)
		if k <= 0 || n > uint64(len(body)-k) {
			return nil, fmt.Errorf("%w: bad length", errOverlay)
		}
		v := body[k : k+int(n)]
		body = body[k+int(n):]
		return v, nil
	}
	for range count {
		if len(body) == 0 || body[0] > opPack {
			return nil, fmt.Errorf("%w: bad record kind", errOverlay)
		}
		op := overlayOp{del: body[0] == opDelete, pack: body[0] == opPack}
		body = body[1:]
		var err error
		if op.key, err = take(); err != nil {
			return nil, err
		}
		if !op.del {
			if op.value, err = take(); err != nil {
				return nil, err
			}
		}
		ops = append(ops, op)
	}
	if len(body) != 0 {
		return nil, fmt.Errorf("%w: %d bytes after the records", errOverlay, len(body))
	}
	return ops, nil
}

// parseOverlay calls fn with the records of every whole frame of data
// (a log's content), in order, and returns the length of the valid
// prefix. A frame cut short by the end of data, or the last frame
// failing its checksum, is the torn end of an append a crash interrupted:
// not committed, and not part of the valid prefix. A bad magic, or a
// frame failing its checksum or its decoding with more data after it, is
// an error wrapping ErrDamaged: committed records would be lost.
func parseOverlay(data []byte, fn func([]overlayOp)) (int64, error) {
	if len(data) < len(overlayMagic) {
		if bytes.HasPrefix(overlayMagic, data) {
			return 0, nil // a creation a crash cut short
		}
		return 0, fmt.Errorf("%w: %w: bad header", ErrDamaged, errOverlay)
	}
	if !bytes.Equal(data[:len(overlayMagic)], overlayMagic) {
		return 0, fmt.Errorf("%w: %w: bad header", ErrDamaged, errOverlay)
	}
	off := int64(len(overlayMagic))
	for off < int64(len(data)) {
		rest := data[off:]
		if len(rest) < frameHeader {
			return off, nil
		}
		n := int64(binary.LittleEndian.Uint32(rest[0:4]))
		if n > int64(len(rest)-frameHeader) {
			return off, nil
		}
		body := rest[frameHeader : frameHeader+n]
		last := off+frameHeader+n == int64(len(data))
		if crc32.Checksum(body, crcTable) != binary.LittleEndian.Uint32(rest[4:8]) {
			if last {
				return off, nil
			}
			return off, fmt.Errorf("%w: %w: frame at offset %d fails its checksum", ErrDamaged, errOverlay, off)
		}
		ops, err := decodeBody(body)
		if err != nil {
			return off, fmt.Errorf("%w: frame at offset %d: %w", ErrDamaged, off, err)
		}
		fn(ops)
		off += frameHeader + n
	}
	return off, nil
}

// readOverlay reads the overlay log of the database in dir into s (nil:
// only check it). It returns the valid length and the file's size (0, 0
// without a log).
func readOverlay(dir string, s *scratch) (valid, size int64, err error) {
	path := filepath.Join(dir, overlayName)
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return 0, 0, nil
	}
	if err != nil {
		return 0, 0, fmt.Errorf("cas: read %s: %w", path, err)
	}
	valid, err = parseOverlay(data, func(ops []overlayOp) {
		if s != nil {
			s.applyShared(ops)
		}
	})
	if err != nil {
		return 0, 0, fmt.Errorf("cas: %s: %w", path, err)
	}
	return valid, int64(len(data)), nil
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
			s.bytes -= int64(len(s.vals[k]))
			delete(s.vals, k)
			delete(s.packed, k)
			s.gone[k] = true
			continue
		}
		s.bytes += int64(len(op.key) + len(op.value) - len(s.vals[k]))
		s.vals[k] = op.value
		delete(s.gone, k)
		s.setPacked(k, op.pack)
	}
}

// overlayFile is the open log a deferred store appends to.
type overlayFile struct {
	dir    string
	f      *os.File // nil until the first append
	size   int64    // valid length (0: no file yet)
	broken bool     // a failed append could not be cut back
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
	created := false
	if o.f == nil {
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE, 0o600)
		if err != nil {
			return fmt.Errorf("cas: open %s: %w", path, err)
		}
		o.f, created = f, o.size == 0
	}
	data := frame
	if o.size == 0 {
		data = append(bytes.Clone(overlayMagic), frame...)
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
		return fmt.Errorf("cas: append to %s: %w", path, err)
	}
	o.size += int64(len(data))
	return nil
}

func (o *overlayFile) close() {
	if o != nil && o.f != nil {
		_ = o.f.Close()
		o.f = nil
	}
}

// removeOverlay removes the log once its records are durable in Badger.
func removeOverlay(dir string) error {
	path := filepath.Join(dir, overlayName)
	if err := os.Remove(path); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil
		}
		return fmt.Errorf("cas: remove %s: %w", path, err)
	}
	return syncDir(dir)
}
