package gitindex

import (
	"bufio"
	"bytes"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
)

// ErrFormat is returned for an index that is not one Decode can read.
var ErrFormat = errors.New("gitindex: malformed index")

// Mode bits of an entry.
const (
	modeGitlink = 0o160000 // a submodule
	modeDir     = 0o040000 // a sparse index's directory entry
	modeType    = 0o170000
)

// maxPath bounds one entry's path.
const maxPath = 64 << 10

// Entry is one index entry as Decode reports it. Path is valid only
// during the call.
type Entry struct {
	Path  []byte
	Mode  uint32
	Stage int
}

// IsDir reports whether the entry names a directory: a submodule, or a
// directory of a sparse index.
func (e *Entry) IsDir() bool {
	t := e.Mode & modeType
	return t == modeGitlink || t == modeDir
}

// Decode reads an index of size bytes from r and calls fn for each
// entry, in index order. sha256 says the repository's object ids and
// checksum are SHA-256. It verifies the trailing checksum, unless it is
// all zeros, before the first call. It stops at fn's first error.
//
// A split index names its shared index, a file "sharedindex.<id>" that
// Decode opens in gitDir (the repository's git directory); it reports
// the entries of both merged, as git reads them. It verifies the
// shared index's checksum by the end. A split index with a nil gitDir,
// or whose shared index is missing or damaged, is an error.
func Decode(r io.ReaderAt, size int64, sha256 bool, gitDir fs.FS, fn func(*Entry) error) error {
	lay, err := scan(r, size, sha256)
	if err != nil {
		return err
	}
	if lay.link != nil {
		return merge(r, size, sha256, lay, gitDir, fn)
	}
	// Read again, the checksum known good.
	x, err := newReader(io.NewSectionReader(r, 0, size), size, sha256, false)
	if err != nil {
		return err
	}
	for {
		e, err := x.next()
		if err != nil || e == nil {
			return err
		}
		if !validPath(e.Path) {
			return fmt.Errorf("%w: entry %d: path %q", ErrFormat, x.n-1, e.Path)
		}
		if err := fn(e); err != nil {
			return err
		}
	}
}

// layout is what a first pass finds in an index: its entry count and
// the link extension of a split index (nil for another).
type layout struct {
	count uint32
	link  *link
}

// scan reads the index in r through, verifying its checksum, and
// returns its layout.
func scan(r io.ReaderAt, size int64, sha256 bool) (layout, error) {
	x, err := newReader(io.NewSectionReader(r, 0, size), size, sha256, true)
	if err != nil {
		return layout{}, err
	}
	for {
		e, err := x.next()
		if err != nil {
			return layout{}, err
		}
		if e == nil {
			break
		}
	}
	var lk *link
	for {
		sig, n, ok, err := x.ext()
		if err != nil {
			return layout{}, err
		}
		if !ok {
			break
		}
		if sig != "link" {
			if err := x.d.skip(n); err != nil {
				return layout{}, err
			}
			continue
		}
		if lk != nil {
			return layout{}, fmt.Errorf("%w: two link extensions", ErrFormat)
		}
		if lk, err = x.link(n); err != nil {
			return layout{}, err
		}
	}
	if _, err := x.sum(); err != nil {
		return layout{}, err
	}
	if lk != nil && allZero(lk.id) {
		lk = nil // git's "not split"
	}
	return layout{count: x.count, link: lk}, nil
}

// reader reads one index file as a stream: its header, then its
// entries, its extensions and its checksum.
type reader struct {
	d       decoder
	raw     io.Reader // the input, for the checksum after the body
	h       hash.Hash // nil: the checksum is not verified
	body    int64     // the size before the checksum
	idLen   int
	version uint32
	count   uint32 // entries in the header
	n       uint32 // entries read
	path    []byte
	fixed   []byte
	e       Entry
}

// newReader reads the header of an index of size bytes from r. With
// verify it hashes what it reads, for sum to check.
func newReader(r io.Reader, size int64, sha256, verify bool) (*reader, error) {
	x := &reader{raw: r, idLen: 20}
	var h hash.Hash = sha1.New()
	if sha256 {
		x.idLen, h = 32, newSHA256()
	}
	if size < 12+int64(x.idLen) {
		return nil, fmt.Errorf("%w: %d bytes", ErrFormat, size)
	}
	x.body = size - int64(x.idLen)
	src := io.LimitReader(r, x.body)
	if verify {
		x.h = h
		src = io.TeeReader(src, h)
	}
	x.d = decoder{r: bufio.NewReaderSize(src, 64<<10), left: x.body}
	var hdr [12]byte
	if err := x.d.full(hdr[:]); err != nil {
		return nil, err
	}
	if string(hdr[:4]) != "DIRC" {
		return nil, fmt.Errorf("%w: no DIRC signature", ErrFormat)
	}
	x.version = binary.BigEndian.Uint32(hdr[4:])
	if x.version < 2 || x.version > 4 {
		return nil, fmt.Errorf("%w: version %d", ErrFormat, x.version)
	}
	x.count = binary.BigEndian.Uint32(hdr[8:])
	x.fixed = make([]byte, 40+x.idLen+2)
	return x, nil
}

// next reads the next entry; nil after the last. Its path is not
// checked: a split index's replacements have none.
func (x *reader) next() (*Entry, error) {
	if x.n == x.count {
		return nil, nil
	}
	i := x.n
	x.n++
	d, e := &x.d, &x.e
	if err := d.full(x.fixed); err != nil {
		return nil, err
	}
	e.Mode = binary.BigEndian.Uint32(x.fixed[24:])
	flags := binary.BigEndian.Uint16(x.fixed[40+x.idLen:])
	e.Stage = int(flags>>12) & 3
	n := len(x.fixed)
	if flags&0x4000 != 0 {
		if x.version < 3 {
			return nil, fmt.Errorf("%w: extended flags in version %d", ErrFormat, x.version)
		}
		var ext [2]byte
		if err := d.full(ext[:]); err != nil {
			return nil, err
		}
		n += 2
	}
	var err error
	if x.version == 4 {
		drop, err := d.varint()
		if err != nil {
			return nil, err
		}
		if drop > uint64(len(x.path)) {
			return nil, fmt.Errorf("%w: entry %d drops %d bytes of a %d-byte path", ErrFormat, i, drop, len(x.path))
		}
		x.path = x.path[:len(x.path)-int(drop)]
		if x.path, err = d.cstring(x.path); err != nil {
			return nil, err
		}
	} else {
		if x.path, err = d.cstring(x.path[:0]); err != nil {
			return nil, err
		}
		n += len(x.path) + 1
		// Padded with NULs to a multiple of 8 (at least one NUL,
		// read by cstring).
		if pad := (8 - n%8) % 8; pad > 0 {
			if err := d.skip(int64(pad)); err != nil {
				return nil, err
			}
		}
	}
	e.Path = x.path
	return e, nil
}

// ext reads the next extension's signature and size, once the entries
// are read; ok is false at the checksum.
func (x *reader) ext() (sig string, size int64, ok bool, err error) {
	if x.d.left == 0 {
		return "", 0, false, nil
	}
	var eh [8]byte
	if err := x.d.full(eh[:]); err != nil {
		return "", 0, false, err
	}
	return string(eh[:4]), int64(binary.BigEndian.Uint32(eh[4:])), true, nil
}

// finish skips the extensions, once the entries are read, and returns
// the checksum (see sum).
func (x *reader) finish() ([]byte, error) {
	for {
		_, n, ok, err := x.ext()
		if err != nil {
			return nil, err
		}
		if !ok {
			return x.sum()
		}
		if err := x.d.skip(n); err != nil {
			return nil, err
		}
	}
}

// sum reads the checksum after the body. When x hashes, one that is
// not all zeros (git's index.skipHash) must match.
func (x *reader) sum() ([]byte, error) {
	sum := make([]byte, x.idLen)
	if _, err := io.ReadFull(x.raw, sum); err != nil {
		return nil, fmt.Errorf("%w: checksum: %v", ErrFormat, err)
	}
	if x.h != nil && !allZero(sum) && !bytes.Equal(sum, x.h.Sum(nil)) {
		return nil, fmt.Errorf("%w: checksum mismatch", ErrFormat)
	}
	return sum, nil
}

// offset is the position in the file of the next byte of the body.
func (x *reader) offset() int64 { return x.body - x.d.left }

func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

func newSHA256() hash.Hash { return sha256.New() }

// decoder reads the index body, counting what is left of it.
type decoder struct {
	r    *bufio.Reader
	left int64
}

func (d *decoder) full(b []byte) error {
	if int64(len(b)) > d.left {
		return fmt.Errorf("%w: truncated", ErrFormat)
	}
	if _, err := io.ReadFull(d.r, b); err != nil {
		return fmt.Errorf("%w: %v", ErrFormat, err)
	}
	d.left -= int64(len(b))
	return nil
}

func (d *decoder) skip(n int64) error {
	if n > d.left {
		return fmt.Errorf("%w: truncated", ErrFormat)
	}
	if _, err := d.r.Discard(int(n)); err != nil {
		return fmt.Errorf("%w: %v", ErrFormat, err)
	}
	d.left -= n
	return nil
}

func (d *decoder) byte() (byte, error) {
	if d.left < 1 {
		return 0, fmt.Errorf("%w: truncated", ErrFormat)
	}
	c, err := d.r.ReadByte()
	if err != nil {
		return 0, fmt.Errorf("%w: %v", ErrFormat, err)
	}
	d.left--
	return c, nil
}

// cstring appends to b the bytes up to a NUL (read and dropped).
func (d *decoder) cstring(b []byte) ([]byte, error) {
	chunk, err := d.r.ReadSlice(0)
	if int64(len(chunk)) > d.left {
		return b, fmt.Errorf("%w: truncated", ErrFormat)
	}
	d.left -= int64(len(chunk))
	if err != nil {
		if errors.Is(err, bufio.ErrBufferFull) {
			return b, fmt.Errorf("%w: path over %d bytes", ErrFormat, maxPath)
		}
		return b, fmt.Errorf("%w: %v", ErrFormat, err)
	}
	chunk = chunk[:len(chunk)-1]
	if len(b)+len(chunk) > maxPath {
		return b, fmt.Errorf("%w: path over %d bytes", ErrFormat, maxPath)
	}
	return append(b, chunk...), nil
}

// varint reads git's offset varint (each continuation adds one before
// shifting, so every value has one encoding).
func (d *decoder) varint() (uint64, error) {
	c, err := d.byte()
	if err != nil {
		return 0, err
	}
	v := uint64(c & 0x7f)
	for c&0x80 != 0 {
		if c, err = d.byte(); err != nil {
			return 0, err
		}
		if v > (1<<56)-2 {
			return 0, fmt.Errorf("%w: varint overflow", ErrFormat)
		}
		v = (v+1)<<7 | uint64(c&0x7f)
	}
	return v, nil
}

// validPath reports whether p is a relative slash path without empty,
// "." or ".." elements (a sparse directory entry's trailing slash
// allowed). It does not allocate.
func validPath(p []byte) bool {
	p = bytes.TrimSuffix(p, []byte("/"))
	if len(p) == 0 {
		return false
	}
	for len(p) > 0 {
		el := p
		if i := bytes.IndexByte(p, '/'); i >= 0 {
			el, p = p[:i], p[i+1:]
			if len(p) == 0 {
				return false
			}
		} else {
			p = nil
		}
		if len(el) == 0 || len(el) <= 2 && el[0] == '.' && (len(el) == 1 || el[1] == '.') {
			return false
		}
	}
	return true
}
