package manifest

import (
	"encoding/binary"
	"fmt"
	"slices"
	"sync"
	"unsafe"

	"github.com/turnback/turnback/cas"
)

// Magic opens every encoded tree; the version byte follows it.
const (
	Magic = "TBTR"
	// Version1 is the encoding of a tree none of whose entries has an
	// owner, a link group or the fifo kind; Version2 adds them. Encode
	// writes the lowest version that can hold the tree, so a tree has
	// one encoding, and trees written before version 2 decode unchanged.
	Version1 = 1
	Version2 = 2
	// Version is the newest encoding.
	Version = Version2
)

const (
	flagUncaptured = 1 << 0
	// flagHashed marks an uncaptured file whose content hash is known
	// (it was read, not stored): the hash follows as for a captured file.
	flagHashed = 1 << 1
	// Version 2 only: flagOwned: uid and gid follow the size;
	// flagLinked: the link group path follows the kind's fields.
	flagOwned    = 1 << 2
	flagLinked   = 1 << 3
	knownFlagsV1 = flagUncaptured | flagHashed
	knownFlagsV2 = knownFlagsV1 | flagOwned | flagLinked

	// minEntryLen is the fewest bytes one entry can take: name length,
	// a one-byte name, kind, flags, mode and size (an uncaptured file).
	minEntryLen = 6
	// maxPrealloc caps how many entries Decode reserves room for up front.
	maxPrealloc = 1 << 16
)

// Encode returns the canonical encoding of t. It fails, with an error
// wrapping ErrMalformed, if t does not pass Validate.
func (t *Tree) Encode() ([]byte, error) { return t.AppendEncode(nil) }

// EncodeBound returns a bound on the bytes of t's encoding: a buffer of
// that capacity is never grown by AppendEncode.
func (t *Tree) EncodeBound() int {
	n, _ := t.encodeBound()
	return n
}

// encodeBound is EncodeBound, and whether t needs Version2.
func (t *Tree) encodeBound() (n int, v2 bool) {
	n = len(Magic) + 1 + binary.MaxVarintLen64
	if t == nil {
		return n, false
	}
	for i := range t.Entries {
		e := &t.Entries[i]
		n += 2 + len(e.Name) + 2 + 3 + binary.MaxVarintLen64 + cas.HashSize + len(e.Target)
		if e.needsV2() {
			v2 = true
			n += 2*binary.MaxVarintLen32 + 2 + len(e.LinkTo)
		}
	}
	return n, v2
}

// AppendEncode appends the canonical encoding of t to dst (whose array it
// reuses when large enough) and returns the extended slice; it fails as
// Encode does, returning dst unchanged.
func (t *Tree) AppendEncode(dst []byte) ([]byte, error) {
	if err := t.Validate(); err != nil {
		return dst, err
	}
	var entries []Entry
	if t != nil {
		entries = t.Entries
	}
	n, v2 := t.encodeBound()
	version := byte(Version1)
	if v2 {
		version = Version2
	}
	b := slices.Grow(dst, n)
	b = append(b, Magic...)
	b = append(b, version)
	b = binary.AppendUvarint(b, uint64(len(entries)))
	for i := range entries {
		b = appendEntry(b, &entries[i])
	}
	return b, nil
}

func appendEntry(b []byte, e *Entry) []byte {
	b = binary.AppendUvarint(b, uint64(len(e.Name)))
	b = append(b, e.Name...)
	var flags byte
	if e.Uncaptured {
		flags |= flagUncaptured
		if e.Kind == KindFile && !e.Hash.IsZero() {
			flags |= flagHashed
		}
	}
	if e.Owned {
		flags |= flagOwned
	}
	if e.LinkTo != "" {
		flags |= flagLinked
	}
	b = append(b, byte(e.Kind), flags)
	b = binary.AppendUvarint(b, uint64(e.Mode))
	b = binary.AppendUvarint(b, uint64(e.Size))
	if e.Owned {
		b = binary.AppendUvarint(b, uint64(e.UID))
		b = binary.AppendUvarint(b, uint64(e.GID))
	}
	switch e.Kind {
	case KindFile:
		if !e.Hash.IsZero() {
			b = append(b, e.Hash[:]...)
		}
	case KindDir:
		if e.Uncaptured {
			b = binary.AppendUvarint(b, uint64(e.Files))
		} else {
			b = append(b, e.Hash[:]...)
		}
	case KindSymlink:
		b = binary.AppendUvarint(b, uint64(len(e.Target)))
		b = append(b, e.Target...)
	}
	if e.LinkTo != "" {
		b = binary.AppendUvarint(b, uint64(len(e.LinkTo)))
		b = append(b, e.LinkTo...)
	}
	return b
}

// Hash returns the content address of t, cas.Sum of its encoding, and the
// encoding itself.
func (t *Tree) Hash() (cas.Hash, []byte, error) {
	b, err := t.Encode()
	if err != nil {
		return cas.Hash{}, nil, err
	}
	return cas.Sum(b), b, nil
}

var emptyTree = sync.OnceValues(func() (cas.Hash, []byte) {
	b, _ := (&Tree{}).Encode() // the empty tree is always valid
	return cas.Sum(b), b
})

// EmptyTreeHash returns the hash of the encoding of a tree with no entries.
func EmptyTreeHash() cas.Hash {
	h, _ := emptyTree()
	return h
}

// Decode parses an encoded tree. It accepts exactly the encodings Encode
// produces: for every b it accepts, Encode of the result equals b. Any other
// input gives an error wrapping ErrMalformed.
func Decode(b []byte) (*Tree, error) {
	var p parser
	if err := p.start(b, false); err != nil {
		return nil, err
	}
	t := &Tree{Entries: make([]Entry, 0, min(p.count, maxPrealloc))}
	for p.more() {
		t.Entries = append(t.Entries, Entry{})
		if err := p.next(&t.Entries[len(t.Entries)-1]); err != nil {
			return nil, err
		}
	}
	if err := p.finish(); err != nil {
		return nil, err
	}
	return t, nil
}

// parser checks an encoding as Decode does, one entry at a time.
type parser struct {
	d     decoder
	count uint64 // entries in the tree
	i     uint64 // entries read
	v2    bool   // some entry needs version 2
	prev  string // the name of the entry before
}

// start reads the header of b. With alias set, the entries' strings
// share b's bytes.
func (p *parser) start(b []byte, alias bool) error {
	*p = parser{d: decoder{b: b, alias: alias}}
	d := &p.d
	if len(b) < len(Magic)+1 {
		return d.errorf("truncated header")
	}
	if string(b[:len(Magic)]) != Magic {
		return d.errorf("bad magic %q", b[:len(Magic)])
	}
	d.off = len(Magic)
	d.version = b[d.off]
	if d.version != Version1 && d.version != Version2 {
		return d.errorf("unsupported version %d", d.version)
	}
	d.off++
	count, err := d.uvarint("entry count")
	if err != nil {
		return err
	}
	if rest := uint64(len(b) - d.off); count > rest/minEntryLen {
		return d.errorf("entry count %d does not fit in %d remaining bytes", count, rest)
	}
	p.count = count
	return nil
}

// more reports whether entries remain to be read.
func (p *parser) more() bool { return p.i < p.count }

// next reads and checks the next entry into e.
func (p *parser) next(e *Entry) error {
	at := p.d.off
	if err := p.d.entry(e); err != nil {
		return err
	}
	if err := checkEntry(e); err != nil {
		return fmt.Errorf("%w: entry %d %q at byte %d: %w", ErrMalformed, p.i, e.Name, at, err)
	}
	if p.i > 0 && p.prev >= e.Name {
		return fmt.Errorf("%w: entry %d %q at byte %d: %s", ErrMalformed, p.i, e.Name, at, orderProblem(p.prev, e.Name))
	}
	p.v2 = p.v2 || e.needsV2()
	p.prev = e.Name
	p.i++
	return nil
}

// finish checks what follows the last entry.
func (p *parser) finish() error {
	d := &p.d
	if d.off != len(d.b) {
		return d.errorf("%d trailing bytes", len(d.b)-d.off)
	}
	if d.version == Version2 && !p.v2 {
		d.off = len(Magic)
		return d.errorf("version 2 tree that version 1 can hold (not canonical)")
	}
	return nil
}

type decoder struct {
	b       []byte
	off     int
	version byte
	alias   bool // strings share b's bytes (see parse)
}

// str returns s as a string, a copy unless d.alias is set.
func (d *decoder) str(s []byte) string {
	if d.alias {
		return unsafe.String(unsafe.SliceData(s), len(s))
	}
	return string(s)
}

func (d *decoder) errorf(format string, args ...any) error {
	return fmt.Errorf("%w: at byte %d: %s", ErrMalformed, d.off, fmt.Sprintf(format, args...))
}

// uvarint reads one minimally encoded unsigned varint.
func (d *decoder) uvarint(what string) (uint64, error) {
	v, n := binary.Uvarint(d.b[d.off:])
	switch {
	case n == 0:
		return 0, d.errorf("truncated %s", what)
	case n < 0:
		return 0, d.errorf("%s overflows 64 bits", what)
	case n > 1 && d.b[d.off+n-1] == 0:
		return 0, d.errorf("non-minimal varint for %s", what)
	}
	d.off += n
	return v, nil
}

// bounded reads a uvarint that must not exceed limit.
func (d *decoder) bounded(what string, limit uint64) (uint64, error) {
	start := d.off
	v, err := d.uvarint(what)
	if err == nil && v > limit {
		d.off = start
		err = d.errorf("%s %d exceeds %d", what, v, limit)
	}
	return v, err
}

func (d *decoder) bytes(what string, n uint64) ([]byte, error) {
	if n > uint64(len(d.b)-d.off) {
		return nil, d.errorf("truncated %s", what)
	}
	s := d.b[d.off : d.off+int(n)]
	d.off += int(n)
	return s, nil
}

func (d *decoder) byte(what string) (byte, error) {
	if d.off >= len(d.b) {
		return 0, d.errorf("truncated %s", what)
	}
	c := d.b[d.off]
	d.off++
	return c, nil
}

func (d *decoder) hash(what string) (cas.Hash, error) {
	var h cas.Hash
	s, err := d.bytes(what, cas.HashSize)
	copy(h[:], s)
	return h, err
}

// entry reads the fields of one entry; checkEntry judges their combination.
func (d *decoder) entry(e *Entry) error {
	n, err := d.bounded("name length", MaxNameLen)
	if err != nil {
		return err
	}
	name, err := d.bytes("name", n)
	if err != nil {
		return err
	}
	e.Name = d.str(name)
	kind, err := d.byte("kind")
	if err != nil {
		return err
	}
	e.Kind = Kind(kind)
	if e.Kind != KindFile && e.Kind != KindDir && e.Kind != KindSymlink && (e.Kind != KindFIFO || d.version < Version2) {
		d.off--
		return d.errorf("unknown kind %d in a version %d tree", kind, d.version)
	}
	flags, err := d.byte("flags")
	if err != nil {
		return err
	}
	known := byte(knownFlagsV1)
	if d.version >= Version2 {
		known = knownFlagsV2
	}
	if flags&^known != 0 {
		d.off--
		return d.errorf("unknown flags %#x in a version %d tree", flags, d.version)
	}
	e.Uncaptured = flags&flagUncaptured != 0
	hashed := flags&flagHashed != 0
	if hashed && (!e.Uncaptured || e.Kind != KindFile) {
		d.off--
		return d.errorf("hashed flag on a %s that is not an uncaptured file", e.Kind)
	}
	mode, err := d.bounded("mode", ModeMask)
	if err != nil {
		return err
	}
	e.Mode = uint32(mode)
	size, err := d.bounded("size", MaxSize)
	if err != nil {
		return err
	}
	e.Size = int64(size)
	if flags&flagOwned != 0 {
		uid, err := d.bounded("uid", 1<<32-1)
		if err != nil {
			return err
		}
		gid, err := d.bounded("gid", 1<<32-1)
		if err != nil {
			return err
		}
		e.Owned, e.UID, e.GID = true, uint32(uid), uint32(gid)
	}
	switch {
	case e.Kind == KindFIFO:
	case e.Kind == KindSymlink:
		n, err := d.bounded("target length", MaxTargetLen)
		if err != nil {
			return err
		}
		target, err := d.bytes("target", n)
		if err != nil {
			return err
		}
		e.Target = d.str(target)
	case e.Uncaptured && e.Kind == KindDir:
		files, err := d.bounded("file count", MaxSize)
		if err != nil {
			return err
		}
		e.Files = int64(files)
	case !e.Uncaptured || hashed:
		if e.Hash, err = d.hash("hash"); err != nil {
			return err
		}
	}
	if flags&flagLinked != 0 {
		n, err := d.bounded("link group path length", MaxLinkLen)
		if err != nil {
			return err
		}
		if n == 0 {
			d.off--
			return d.errorf("empty link group path")
		}
		p, err := d.bytes("link group path", n)
		if err != nil {
			return err
		}
		e.LinkTo = d.str(p)
	}
	return nil
}
