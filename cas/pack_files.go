package cas

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// Pack file names and listing, and reading values back (see pack.go).

func packName(id uint64) string { return fmt.Sprintf("%08d%s", id, packExt) }

// parsePackName returns the id of a pack file name.
func parsePackName(name string) (uint64, bool) {
	s, ok := strings.CutSuffix(name, packExt)
	if !ok {
		return 0, false
	}
	id, err := strconv.ParseUint(s, 10, 64)
	return id, err == nil
}

// packInfo is one pack file on disk.
type packInfo struct {
	id   uint64
	size int64
}

// listPacks returns the pack files in dir, by id.
func listPacks(dir string) ([]packInfo, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []packInfo
	for _, e := range ents {
		id, ok := parsePackName(e.Name())
		if !ok || !e.Type().IsRegular() {
			continue
		}
		fi, err := e.Info()
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		out = append(out, packInfo{id: id, size: fi.Size()})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].id < out[j].id })
	return out, nil
}

// read returns the value ptr names, checked against its CRC.
func (p *packs) read(ptr packPtr) ([]byte, error) {
	return p.readInto(ptr, false)
}

// readPooled is read into a buffer of getBuf, which the caller may give
// back with putBuf once nothing holds the value.
func (p *packs) readPooled(ptr packPtr) ([]byte, error) {
	return p.readInto(ptr, true)
}

func (p *packs) readInto(ptr packPtr, pooled bool) ([]byte, error) {
	r, err := p.reader(ptr.pack)
	if err != nil {
		return nil, err
	}
	// A damaged pointer must not make the read allocate what the file
	// does not hold. The size last seen is looked at again only when the
	// value lies past it (the pack grew since).
	inside := func(size int64) bool {
		return ptr.off >= 0 && ptr.size >= 0 && ptr.off <= size && ptr.size <= size-ptr.off
	}
	if !inside(r.size.Load()) {
		fi, err := r.f.Stat()
		if err != nil {
			return nil, fmt.Errorf("cas: read pack %s: %w", packName(ptr.pack), err)
		}
		r.size.Store(fi.Size())
		if !inside(fi.Size()) {
			return nil, fmt.Errorf("%w: pack %s: value at %d (%d bytes) past the end", ErrCorrupt, packName(ptr.pack), ptr.off, ptr.size)
		}
	}
	var out []byte
	if pooled {
		out = getBuf(int(ptr.size))
	} else {
		out = make([]byte, ptr.size)
	}
	if _, err := r.f.ReadAt(out, ptr.off); err != nil {
		if pooled {
			putBuf(out)
		}
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%w: pack %s: value at %d (%d bytes) past the end", ErrCorrupt, packName(ptr.pack), ptr.off, ptr.size)
		}
		return nil, fmt.Errorf("cas: read pack %s: %w", packName(ptr.pack), err)
	}
	if crc32.Checksum(out, castagnoli) != ptr.crc {
		err := fmt.Errorf("%w: pack %s: value at %d (%d bytes) fails its checksum", ErrCorrupt, packName(ptr.pack), ptr.off, ptr.size)
		if ptr.member {
			// The damage may lie outside this member's bytes: the
			// value goes on with the error, for the member's own
			// check (see Badger.unpack).
			return out, &damagedBlockError{err: err}
		}
		if pooled {
			putBuf(out)
		}
		return nil, err
	}
	return out, nil
}

// damagedBlockError: a block failed its checksum. Its members are still
// read, each checked against its address: damage elsewhere in a block
// that is stored raw, or past a member in a zstd one, costs only the
// members it touches.
type damagedBlockError struct{ err error }

func (e *damagedBlockError) Error() string { return e.err.Error() }
func (e *damagedBlockError) Unwrap() error { return e.err }

func (p *packs) reader(id uint64) (*packReader, error) {
	p.rmu.RLock()
	r := p.readers[id]
	p.rmu.RUnlock()
	if r != nil {
		return r, nil
	}
	p.rmu.Lock()
	defer p.rmu.Unlock()
	if r := p.readers[id]; r != nil {
		return r, nil
	}
	f, err := os.Open(filepath.Join(p.dir, packName(id)))
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%w: pack %s is missing", ErrCorrupt, packName(id))
	}
	if err != nil {
		return nil, fmt.Errorf("cas: open pack: %w", err)
	}
	r = &packReader{f: f}
	r.size.Store(-1) // not looked at yet
	p.readers[id] = r
	return r, nil
}

// dropReader closes the reader of pack id, if open.
func (p *packs) dropReader(id uint64) {
	p.rmu.Lock()
	defer p.rmu.Unlock()
	if r := p.readers[id]; r != nil {
		_ = r.f.Close()
		delete(p.readers, id)
	}
}

// packPtr locates one value in a pack file, or one member of a block
// (block.go) stored as one value.
type packPtr struct {
	pack uint64 // pack id
	off  int64  // offset of the value in the file
	size int64  // length of the value
	crc  uint32 // CRC-32C of the value

	member         bool  // the value is a block; the pointer names one member
	memOff, memLen int64 // the member's span in the block's content
}

func (p packPtr) encode() []byte {
	b := make([]byte, 0, 1+5*binary.MaxVarintLen64+4)
	tag := packPointerTag
	if p.member {
		tag = packMemberTag
	}
	b = append(b, tag)
	b = binary.AppendUvarint(b, p.pack)
	b = binary.AppendUvarint(b, uint64(p.off))
	b = binary.AppendUvarint(b, uint64(p.size))
	b = binary.LittleEndian.AppendUint32(b, p.crc)
	if p.member {
		b = binary.AppendUvarint(b, uint64(p.memOff))
		b = binary.AppendUvarint(b, uint64(p.memLen))
	}
	return b
}

// packMemberTag starts the pointer to a block member: a pack pointer's
// fields, then the member's offset and length as uvarints.
const packMemberTag byte = 0xfd

// errBadPointer: a pack pointer that does not decode. Made once: every
// read decodes a pointer.
var errBadPointer = fmt.Errorf("%w: malformed pack pointer", ErrCorrupt)

func decodePackPtr(b []byte) (packPtr, error) {
	bad := errBadPointer
	if len(b) < 1+3+4 || (b[0] != packPointerTag && b[0] != packMemberTag) {
		return packPtr{}, bad
	}
	var p packPtr
	p.member = b[0] == packMemberTag
	r := b[1:]
	var vals [3]uint64
	for i := range vals {
		v, n := binary.Uvarint(r)
		if n <= 0 {
			return packPtr{}, bad
		}
		vals[i], r = v, r[n:]
	}
	if len(r) < 4 || vals[1] > 1<<62 || vals[2] > 1<<40 {
		return packPtr{}, bad
	}
	p.pack, p.off, p.size = vals[0], int64(vals[1]), int64(vals[2])
	p.crc = binary.LittleEndian.Uint32(r)
	r = r[4:]
	if !p.member {
		if len(r) != 0 {
			return packPtr{}, bad
		}
		return p, nil
	}
	for _, v := range []*int64{&p.memOff, &p.memLen} {
		u, n := binary.Uvarint(r)
		if n <= 0 || u > 1<<40 {
			return packPtr{}, bad
		}
		*v, r = int64(u), r[n:]
	}
	if len(r) != 0 {
		return packPtr{}, bad
	}
	return p, nil
}

// moved returns p pointing at np, where its value was copied; a member
// keeps its span.
func (p packPtr) moved(np packPtr) packPtr {
	np.member, np.memOff, np.memLen = p.member, p.memOff, p.memLen
	return np
}

// loc is where p's value lies, whichever member it names.
func (p packPtr) loc() [2]int64 { return [2]int64{int64(p.pack), p.off} }
