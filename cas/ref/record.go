package ref

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// Kind says where referenced content sits.
type Kind uint8

// Kinds of reference.
const (
	// LFS: a Git LFS object, <lfs dir>/objects/aa/bb/<sha256 hex>.
	LFS Kind = 1
	// Git: a blob in a git object database (loose or packed).
	Git Kind = 2
	// Clone: a copy-on-write clone in the store's clone directory.
	Clone Kind = 3
)

func (k Kind) String() string {
	if int(k) < len(kindNames) && kindNames[k] != "" {
		return kindNames[k]
	}
	return fmt.Sprintf("kind %d", uint8(k))
}

var kindNames = [...]string{LFS: "lfs", Git: "git", Clone: "clone"}

// Ref is one place holding content: Dir is the LFS object directory (for
// LFS), the git object directory (for Git, "<common dir>/objects") or
// the clone directory (for Clone); the object name within it is derived
// from the Record's digests.
type Ref struct {
	Kind Kind
	Dir  string
}

// Record is what a store keeps about content above its size limit: the
// content's size, its other digests (computed in the same read as its
// BLAKE3, so later captures need not read it again to look for a
// reference) and the places found to hold it.
type Record struct {
	Size   int64
	SHA256 [32]byte // the Git LFS oid
	GitOID [20]byte // SHA-1 of "blob <size>\x00" + content: the git blob id
	Refs   []Ref
}

// ErrCorrupt: a record that cannot be decoded.
var ErrCorrupt = errors.New("ref: corrupt record")

const recordVersion = 1

// Encode returns the record's stored form: a version byte, the size
// (uvarint), the two digests, the number of references (uvarint), then
// per reference its kind byte and its directory (uvarint length, bytes).
func (r *Record) Encode() []byte {
	b := []byte{recordVersion}
	b = binary.AppendUvarint(b, uint64(r.Size))
	b = append(b, r.SHA256[:]...)
	b = append(b, r.GitOID[:]...)
	b = binary.AppendUvarint(b, uint64(len(r.Refs)))
	for _, f := range r.Refs {
		b = append(b, byte(f.Kind))
		b = binary.AppendUvarint(b, uint64(len(f.Dir)))
		b = append(b, f.Dir...)
	}
	return b
}

// Decode parses a record written by Encode. Unknown reference kinds are
// kept (a newer turnback may add some); this one ignores them.
func Decode(b []byte) (*Record, error) {
	if len(b) == 0 || b[0] != recordVersion {
		return nil, fmt.Errorf("%w: unknown version", ErrCorrupt)
	}
	b = b[1:]
	r := &Record{}
	size, n := binary.Uvarint(b)
	if n <= 0 || size > 1<<62 {
		return nil, fmt.Errorf("%w: size", ErrCorrupt)
	}
	r.Size = int64(size)
	b = b[n:]
	if len(b) < 52 {
		return nil, fmt.Errorf("%w: digests", ErrCorrupt)
	}
	copy(r.SHA256[:], b)
	copy(r.GitOID[:], b[32:])
	b = b[52:]
	count, n := binary.Uvarint(b)
	if n <= 0 || count > 64 {
		return nil, fmt.Errorf("%w: reference count", ErrCorrupt)
	}
	b = b[n:]
	for i := uint64(0); i < count; i++ {
		if len(b) < 1 {
			return nil, fmt.Errorf("%w: truncated", ErrCorrupt)
		}
		k := Kind(b[0])
		l, n := binary.Uvarint(b[1:])
		if n <= 0 || l > 4096 || uint64(len(b)-1-n) < l {
			return nil, fmt.Errorf("%w: reference %d", ErrCorrupt, i)
		}
		r.Refs = append(r.Refs, Ref{Kind: k, Dir: string(b[1+n : 1+n+int(l)])})
		b = b[1+n+int(l):]
	}
	if len(b) != 0 {
		return nil, fmt.Errorf("%w: %d trailing bytes", ErrCorrupt, len(b))
	}
	return r, nil
}

// Add adds f unless the record already has it; it reports whether it did.
func (r *Record) Add(f Ref) bool {
	for _, g := range r.Refs {
		if g == f {
			return false
		}
	}
	r.Refs = append(r.Refs, f)
	return true
}
