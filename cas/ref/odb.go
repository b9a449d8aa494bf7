package ref

import (
	"bufio"
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// Git object types as packs number them.
const (
	objCommit   = 1
	objTree     = 2
	objBlob     = 3
	objTag      = 4
	objOfsDelta = 6
	objRefDelta = 7
)

// Limits that bound what a damaged or hostile object database can make
// the reader do.
const (
	// maxInMemory bounds an object resolved in memory (a delta's base and
	// result). Undeltified blobs are streamed whatever their size.
	maxInMemory = 2 << 30
	// maxDeltaDepth bounds a delta chain (git's own default is 50).
	maxDeltaDepth = 1000
)

// ODB reads blobs from a git object database (an objects directory):
// loose objects (zlib) and packs (.idx version 2 and .pack, with
// OFS_DELTA and REF_DELTA objects resolved), and the databases its
// objects/info/alternates names (one level). It never writes and never
// runs git.
type ODB struct {
	dir   string
	once  sync.Once
	packs []*packIdx
	alts  []*ODB
	err   error
}

// OpenODB returns a reader of the object database in dir. Nothing is read
// until it is used.
func OpenODB(dir string) *ODB { return &ODB{dir: dir} }

type packIdx struct {
	idx, pack string
	n         uint32
	fanout    [256]uint32
}

func (o *ODB) load(alternates bool) error {
	o.once.Do(func() {
		names, _ := filepath.Glob(filepath.Join(o.dir, "pack", "*.idx"))
		sort.Strings(names)
		for _, name := range names {
			p, err := openIdx(name)
			if err != nil {
				continue // a pack being written, or damaged: its objects are not found
			}
			o.packs = append(o.packs, p)
		}
		if !alternates {
			return
		}
		data, err := readSmall(filepath.Join(o.dir, "info", "alternates"))
		if err != nil {
			return
		}
		for _, line := range strings.Split(string(data), "\n") {
			line = strings.TrimSpace(line)
			if line == "" || line[0] == '#' {
				continue
			}
			if !filepath.IsAbs(line) {
				line = filepath.Join(o.dir, line)
			}
			a := &ODB{dir: filepath.Clean(line)}
			_ = a.load(false)
			o.alts = append(o.alts, a)
		}
	})
	return o.err
}

func openIdx(name string) (*packIdx, error) {
	f, err := openRegular(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var hdr [8 + 1024]byte
	if _, err := io.ReadFull(f, hdr[:]); err != nil {
		return nil, err
	}
	if !bytes.Equal(hdr[:4], []byte{0xff, 't', 'O', 'c'}) || binary.BigEndian.Uint32(hdr[4:8]) != 2 {
		return nil, fmt.Errorf("ref: %s: not a version 2 pack index", name)
	}
	p := &packIdx{idx: name, pack: strings.TrimSuffix(name, ".idx") + ".pack"}
	prev := uint32(0)
	for i := range p.fanout {
		p.fanout[i] = binary.BigEndian.Uint32(hdr[8+4*i:])
		if p.fanout[i] < prev {
			return nil, fmt.Errorf("ref: %s: fanout table out of order", name)
		}
		prev = p.fanout[i]
	}
	p.n = p.fanout[255]
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if int64(p.n) > (fi.Size()-8-1024)/28 {
		return nil, fmt.Errorf("ref: %s: truncated", name)
	}
	return p, nil
}

// find returns the pack offset of oid, or -1.
func (p *packIdx) find(oid [20]byte) (int64, error) {
	lo := uint32(0)
	if oid[0] > 0 {
		lo = p.fanout[oid[0]-1]
	}
	hi := p.fanout[oid[0]]
	if lo >= hi {
		return -1, nil
	}
	f, err := openRegular(p.idx)
	if err != nil {
		return -1, err
	}
	defer f.Close()
	const names = 8 + 1024
	var buf [20]byte
	for lo < hi {
		mid := lo + (hi-lo)/2
		if _, err := f.ReadAt(buf[:], names+int64(mid)*20); err != nil {
			return -1, fmt.Errorf("ref: %s: %w", p.idx, err)
		}
		switch c := bytes.Compare(buf[:], oid[:]); {
		case c == 0:
			offs := names + int64(p.n)*24 // after the names and CRCs
			if _, err := f.ReadAt(buf[:4], offs+int64(mid)*4); err != nil {
				return -1, fmt.Errorf("ref: %s: %w", p.idx, err)
			}
			off := binary.BigEndian.Uint32(buf[:4])
			if off&0x80000000 == 0 {
				return int64(off), nil
			}
			big := offs + int64(p.n)*4 + int64(off&0x7fffffff)*8
			if _, err := f.ReadAt(buf[:8], big); err != nil {
				return -1, fmt.Errorf("ref: %s: %w", p.idx, err)
			}
			o := binary.BigEndian.Uint64(buf[:8])
			if o > 1<<62 {
				return -1, fmt.Errorf("ref: %s: bad offset", p.idx)
			}
			return int64(o), nil
		case c < 0:
			lo = mid + 1
		default:
			hi = mid
		}
	}
	return -1, nil
}

func (o *ODB) loosePath(oid [20]byte) string {
	h := hex.EncodeToString(oid[:])
	return filepath.Join(o.dir, h[:2], h[2:])
}

// Has reports whether the database holds object oid (any type).
func (o *ODB) Has(oid [20]byte) (bool, error) {
	if err := o.load(true); err != nil {
		return false, err
	}
	for _, db := range append([]*ODB{o}, o.alts...) {
		if fi, err := os.Stat(db.loosePath(oid)); err == nil && fi.Mode().IsRegular() {
			return true, nil
		}
		for _, p := range db.packs {
			off, err := p.find(oid)
			if err != nil {
				return false, err
			}
			if off >= 0 {
				return true, nil
			}
		}
	}
	return false, nil
}

// Open returns the content of blob oid and its size. An undeltified
// blob (loose, or whole in a pack) is streamed; a deltified one is
// resolved in memory. Content is not checked against oid: the caller
// verifies what it reads by its own hash.
func (o *ODB) Open(oid [20]byte) (io.ReadCloser, int64, error) {
	if err := o.load(true); err != nil {
		return nil, 0, err
	}
	for _, db := range append([]*ODB{o}, o.alts...) {
		rc, size, err := db.open(oid, 0, true)
		if err == nil {
			return rc, size, nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return nil, 0, err
		}
	}
	return nil, 0, fmt.Errorf("%w: git blob %x not in %s", ErrStale, oid, o.dir)
}

// open finds oid in this database (loose, then packs); a missing object
// is an error wrapping fs.ErrNotExist. With stream, a blob is returned
// as a stream when it is stored whole; otherwise in memory.
func (o *ODB) open(oid [20]byte, depth int, stream bool) (io.ReadCloser, int64, error) {
	if f, err := openRegular(o.loosePath(oid)); err == nil {
		return openLoose(f, oid, stream)
	}
	for _, p := range o.packs {
		off, err := p.find(oid)
		if err != nil {
			return nil, 0, err
		}
		if off < 0 {
			continue
		}
		f, err := openRegular(p.pack)
		if err != nil {
			return nil, 0, fmt.Errorf("ref: %s: %w", p.pack, err)
		}
		if stream {
			rc, size, err := streamPacked(f, off)
			if err == nil {
				return rc, size, nil
			}
			if !errors.Is(err, errDelta) {
				f.Close()
				return nil, 0, err
			}
		}
		typ, data, err := o.resolve(f, off, depth)
		f.Close()
		if err != nil {
			if depth > 0 {
				// A delta base: the object that needed it names the
				// failure once (wrapping at every level of a chain made
				// the message, and the memory, grow with its square).
				return nil, 0, err
			}
			return nil, 0, fmt.Errorf("ref: git object %x in %s: %w", oid, p.pack, err)
		}
		if typ != objBlob {
			return nil, 0, fmt.Errorf("%w: git object %x is not a blob", ErrStale, oid)
		}
		return io.NopCloser(bytes.NewReader(data)), int64(len(data)), nil
	}
	return nil, 0, fs.ErrNotExist
}

// openLoose reads a loose object: zlib, then "<type> <size>\x00", then
// the content.
func openLoose(f *os.File, oid [20]byte, stream bool) (io.ReadCloser, int64, error) {
	zr, err := zlib.NewReader(bufio.NewReader(f))
	if err != nil {
		f.Close()
		return nil, 0, fmt.Errorf("%w: loose object %x: %v", ErrStale, oid, err)
	}
	br := bufio.NewReader(zr)
	hdr, err := br.ReadString(0)
	if err != nil || len(hdr) > 32 {
		f.Close()
		return nil, 0, fmt.Errorf("%w: loose object %x: bad header", ErrStale, oid)
	}
	typ, sz, ok := strings.Cut(strings.TrimSuffix(hdr, "\x00"), " ")
	size, perr := strconv.ParseInt(sz, 10, 64)
	if !ok || perr != nil || size < 0 {
		f.Close()
		return nil, 0, fmt.Errorf("%w: loose object %x: bad header", ErrStale, oid)
	}
	if typ != "blob" && stream {
		f.Close()
		return nil, 0, fmt.Errorf("%w: git object %x is a %s, not a blob", ErrStale, oid, typ)
	}
	rc := &readCloser{Reader: io.LimitReader(br, size), close: f.Close}
	if stream {
		return rc, size, nil
	}
	defer rc.Close()
	if size > maxInMemory {
		return nil, 0, fmt.Errorf("ref: loose object %x: %d bytes is too large", oid, size)
	}
	data := make([]byte, size)
	if _, err := io.ReadFull(rc, data); err != nil {
		return nil, 0, fmt.Errorf("%w: loose object %x: %v", ErrStale, oid, err)
	}
	// Tag the type in front for resolve's benefit.
	t := map[string]byte{"commit": objCommit, "tree": objTree, "blob": objBlob, "tag": objTag}[typ]
	return &readCloser{Reader: bytes.NewReader(data), close: func() error { return nil }, typ: t, data: data}, size, nil
}

type readCloser struct {
	io.Reader
	close func() error
	typ   byte
	data  []byte
}

func (r *readCloser) Close() error { return r.close() }

var errDelta = errors.New("ref: deltified object")

// objHeader reads a pack object's type and size at off and returns a
// reader positioned after the header.
func objHeader(f *os.File, off int64) (int, int64, *bufio.Reader, error) {
	br := bufio.NewReaderSize(io.NewSectionReader(f, off, 1<<62), 64<<10)
	c, err := br.ReadByte()
	if err != nil {
		return 0, 0, nil, err
	}
	typ := int(c>>4) & 7
	size := int64(c & 15)
	shift := uint(4)
	for c&0x80 != 0 {
		if c, err = br.ReadByte(); err != nil {
			return 0, 0, nil, err
		}
		if shift > 56 {
			return 0, 0, nil, fmt.Errorf("object size overflows at offset %d", off)
		}
		size |= int64(c&0x7f) << shift
		shift += 7
	}
	return typ, size, br, nil
}

// streamPacked returns a whole (undeltified) blob at off as a stream;
// errDelta if it is a delta.
func streamPacked(f *os.File, off int64) (io.ReadCloser, int64, error) {
	typ, size, br, err := objHeader(f, off)
	if err != nil {
		return nil, 0, fmt.Errorf("ref: %s: %w", f.Name(), err)
	}
	switch typ {
	case objBlob:
	case objOfsDelta, objRefDelta:
		return nil, 0, errDelta
	default:
		return nil, 0, fmt.Errorf("%w: pack object at %d is not a blob", ErrStale, off)
	}
	zr, err := zlib.NewReader(br)
	if err != nil {
		return nil, 0, fmt.Errorf("ref: %s: %w", f.Name(), err)
	}
	return &readCloser{Reader: io.LimitReader(zr, size), close: f.Close}, size, nil
}

// resolve reads the object at off in pack f, applying deltas, in memory.
func (o *ODB) resolve(f *os.File, off int64, depth int) (int, []byte, error) {
	if depth > maxDeltaDepth {
		return 0, nil, fmt.Errorf("delta chain longer than %d", maxDeltaDepth)
	}
	typ, size, br, err := objHeader(f, off)
	if err != nil {
		return 0, nil, err
	}
	var baseTyp int
	var base []byte
	switch typ {
	case objCommit, objTree, objBlob, objTag:
		data, err := inflate(br, size)
		return typ, data, err
	case objOfsDelta:
		c, err := br.ReadByte()
		if err != nil {
			return 0, nil, err
		}
		neg := int64(c & 0x7f)
		for c&0x80 != 0 {
			if c, err = br.ReadByte(); err != nil {
				return 0, nil, err
			}
			if neg > 1<<55 {
				return 0, nil, fmt.Errorf("delta base offset overflows")
			}
			neg = ((neg + 1) << 7) | int64(c&0x7f)
		}
		if neg <= 0 || neg > off {
			return 0, nil, fmt.Errorf("delta base offset %d out of range at %d", neg, off)
		}
		if baseTyp, base, err = o.resolve(f, off-neg, depth+1); err != nil {
			return 0, nil, err
		}
	case objRefDelta:
		var oid [20]byte
		if _, err := io.ReadFull(br, oid[:]); err != nil {
			return 0, nil, err
		}
		rc, _, err := o.open(oid, depth+1, false)
		if err != nil {
			if depth > 0 {
				return 0, nil, err
			}
			return 0, nil, fmt.Errorf("delta base %x: %w", oid, err)
		}
		data, err := io.ReadAll(rc)
		if lr, ok := rc.(*readCloser); ok && lr.typ != 0 {
			baseTyp = int(lr.typ)
		} else {
			baseTyp = objBlob // resolved in memory by open: a blob
		}
		rc.Close()
		if err != nil {
			return 0, nil, err
		}
		base = data
	default:
		return 0, nil, fmt.Errorf("unknown object type %d at %d", typ, off)
	}
	delta, err := inflate(br, size)
	if err != nil {
		return 0, nil, err
	}
	out, err := applyDelta(base, delta)
	return baseTyp, out, err
}

func inflate(r io.Reader, size int64) ([]byte, error) {
	if size > maxInMemory {
		return nil, fmt.Errorf("object of %d bytes is too large", size)
	}
	zr, err := zlib.NewReader(r)
	if err != nil {
		return nil, err
	}
	data := make([]byte, size)
	if _, err := io.ReadFull(zr, data); err != nil {
		return nil, fmt.Errorf("inflate: %w", err)
	}
	return data, nil
}

func deltaSize(d []byte) (int64, []byte, error) {
	v, n := binary.Uvarint(d)
	if n <= 0 || v > maxInMemory {
		return 0, nil, fmt.Errorf("bad delta header")
	}
	return int64(v), d[n:], nil
}

// applyDelta applies a git delta (source size, target size, then copy
// and insert instructions) to base.
func applyDelta(base, d []byte) ([]byte, error) {
	src, d, err := deltaSize(d)
	if err != nil {
		return nil, err
	}
	if src != int64(len(base)) {
		return nil, fmt.Errorf("delta expects a base of %d bytes, got %d", src, len(base))
	}
	dst, d, err := deltaSize(d)
	if err != nil {
		return nil, err
	}
	// Each instruction adds at most len(base) bytes (a copy) or its own
	// length (an insert): a header promising more is not believed.
	out := make([]byte, 0, min(dst, int64(len(base)+1)*int64(len(d))))
	for len(d) > 0 {
		c := d[0]
		d = d[1:]
		if c&0x80 == 0 {
			if c == 0 || int(c) > len(d) {
				return nil, fmt.Errorf("bad delta insert")
			}
			out = append(out, d[:c]...)
			d = d[c:]
			continue
		}
		var off, n uint64
		for i := 0; i < 4; i++ {
			if c&(1<<i) != 0 {
				if len(d) == 0 {
					return nil, fmt.Errorf("truncated delta")
				}
				off |= uint64(d[0]) << (8 * i)
				d = d[1:]
			}
		}
		for i := 0; i < 3; i++ {
			if c&(0x10<<i) != 0 {
				if len(d) == 0 {
					return nil, fmt.Errorf("truncated delta")
				}
				n |= uint64(d[0]) << (8 * i)
				d = d[1:]
			}
		}
		if n == 0 {
			n = 0x10000
		}
		if off+n > uint64(len(base)) || int64(len(out))+int64(n) > dst {
			return nil, fmt.Errorf("delta copy out of range")
		}
		out = append(out, base[off:off+n]...)
	}
	if int64(len(out)) != dst {
		return nil, fmt.Errorf("delta gave %d bytes, expected %d", len(out), dst)
	}
	return out, nil
}
