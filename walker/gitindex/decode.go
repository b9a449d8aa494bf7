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
// checksum are SHA-256. It verifies the trailing checksum (unless it is
// all zeros) and stops at fn's first error.
func Decode(r io.Reader, size int64, sha256 bool, fn func(*Entry) error) error {
	idLen := 20
	var h hash.Hash = sha1.New()
	if sha256 {
		idLen, h = 32, newSHA256()
	}
	if size < 12+int64(idLen) {
		return fmt.Errorf("%w: %d bytes", ErrFormat, size)
	}
	body := size - int64(idLen)
	br := bufio.NewReaderSize(io.TeeReader(io.LimitReader(r, body), h), 64<<10)
	d := decoder{r: br, left: body}
	var hdr [12]byte
	if err := d.full(hdr[:]); err != nil {
		return err
	}
	if string(hdr[:4]) != "DIRC" {
		return fmt.Errorf("%w: no DIRC signature", ErrFormat)
	}
	version := binary.BigEndian.Uint32(hdr[4:])
	if version < 2 || version > 4 {
		return fmt.Errorf("%w: version %d", ErrFormat, version)
	}
	count := binary.BigEndian.Uint32(hdr[8:])
	var path []byte
	fixed := make([]byte, 40+idLen+2)
	e := &Entry{}
	for i := uint32(0); i < count; i++ {
		if err := d.full(fixed); err != nil {
			return err
		}
		e.Mode = binary.BigEndian.Uint32(fixed[24:])
		flags := binary.BigEndian.Uint16(fixed[40+idLen:])
		e.Stage = int(flags>>12) & 3
		n := 40 + idLen + 2
		if flags&0x4000 != 0 {
			if version < 3 {
				return fmt.Errorf("%w: extended flags in version %d", ErrFormat, version)
			}
			var ext [2]byte
			if err := d.full(ext[:]); err != nil {
				return err
			}
			n += 2
		}
		if version == 4 {
			drop, err := d.varint()
			if err != nil {
				return err
			}
			if drop > uint64(len(path)) {
				return fmt.Errorf("%w: entry %d drops %d bytes of a %d-byte path", ErrFormat, i, drop, len(path))
			}
			path = path[:len(path)-int(drop)]
			if path, err = d.cstring(path); err != nil {
				return err
			}
		} else {
			var err error
			if path, err = d.cstring(path[:0]); err != nil {
				return err
			}
			n += len(path) + 1
			// Padded with NULs to a multiple of 8 (at least one NUL,
			// read by cstring).
			if pad := (8 - n%8) % 8; pad > 0 {
				if err := d.skip(int64(pad)); err != nil {
					return err
				}
			}
		}
		if !validPath(path) {
			return fmt.Errorf("%w: entry %d: path %q", ErrFormat, i, path)
		}
		e.Path = path
		if err := fn(e); err != nil {
			return err
		}
	}
	// Extensions: a signature and a size each, up to the checksum.
	for d.left > 0 {
		var eh [8]byte
		if err := d.full(eh[:]); err != nil {
			return err
		}
		if err := d.skip(int64(binary.BigEndian.Uint32(eh[4:]))); err != nil {
			return err
		}
	}
	sum := make([]byte, idLen)
	if _, err := io.ReadFull(r, sum); err != nil {
		return fmt.Errorf("%w: checksum: %v", ErrFormat, err)
	}
	if !bytes.Equal(sum, make([]byte, idLen)) && !bytes.Equal(sum, h.Sum(nil)) {
		return fmt.Errorf("%w: checksum mismatch", ErrFormat)
	}
	return nil
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
