package cas

import (
	"encoding/hex"
	"fmt"
	"sync"

	"github.com/zeebo/blake3"
)

// HashSize is the length in bytes of a content address.
const HashSize = 32

// ShortLen is the number of hex digits shown to people for an id.
const ShortLen = 12

// Hash is a BLAKE3-256 content address.
type Hash [HashSize]byte

// Sum returns the content address of data.
func Sum(data []byte) Hash {
	x := hashers.Get().(*blake3.Hasher)
	x.Reset()
	_, _ = x.Write(data)
	var h Hash
	_, _ = x.Digest().Read(h[:])
	hashers.Put(x)
	return h
}

// hashers are Sum's hashers. blake3.Sum256 keeps its hasher on the
// stack, a frame of 22 KiB: each goroutine that called it grew its
// stack for it, and a capture, which hashes each directory's tree on
// one of its workers, paid a page fault for every page of it.
var hashers = sync.Pool{New: func() any { return blake3.New() }}

// IsZero reports whether h is the zero value (no content).
func (h Hash) IsZero() bool { return h == Hash{} }

// String returns the full lower-case hex form of h.
func (h Hash) String() string { return hex.EncodeToString(h[:]) }

// Short returns the first ShortLen hex digits of h.
func (h Hash) Short() string { return h.String()[:ShortLen] }

// ParseHash parses a full-length hex content address.
func ParseHash(s string) (Hash, error) {
	var h Hash
	if len(s) != 2*HashSize {
		return h, fmt.Errorf("cas: parse hash %q: want %d hex digits, got %d", s, 2*HashSize, len(s))
	}
	if _, err := hex.Decode(h[:], []byte(s)); err != nil {
		return h, fmt.Errorf("cas: parse hash %q: %w", s, err)
	}
	return h, nil
}
