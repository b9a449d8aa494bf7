package ref

import (
	"bufio"
	"bytes"
	"compress/zlib"
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
