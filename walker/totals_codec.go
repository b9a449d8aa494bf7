package walker

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/turnback/turnback/cas"
)

// The plain encoding of TreeTotals (AppendPlain, LoadPlain), for a
// process that hands its counts to another (a command's capture to the
// watch daemon that takes it over):
//
//	"tbtt1" uvarint(n) n × { hash[32] uvarint(files, dirs, symlinks, fifos, bytes) flags }
//
// flags bit 0 is reread. Trees whose totals hold uncaptured entries are
// left out (their entries would need the manifest encoding): the
// receiver loads and counts those again, with everything above them.

const totalsMagic = "tbtt1"

// ErrTotalsEncoding: LoadPlain was given bytes that are not a plain
// encoding of TreeTotals.
var ErrTotalsEncoding = errors.New("walker: bad tree totals encoding")

// AppendPlain appends the plain encoding of t's totals to b, in address
// order (the encoding of equal totals is equal).
func (t *TreeTotals) AppendPlain(b []byte) []byte {
	t.mu.Lock()
	defer t.mu.Unlock()
	keys := make([]cas.Hash, 0, len(t.m))
	for h, v := range t.m {
		if len(v.uncaptured) == 0 {
			keys = append(keys, h)
		}
	}
	slices.SortFunc(keys, func(a, b cas.Hash) int { return slices.Compare(a[:], b[:]) })
	b = append(b, totalsMagic...)
	b = binary.AppendUvarint(b, uint64(len(keys)))
	for _, h := range keys {
		v := t.m[h]
		b = append(b, h[:]...)
		for _, n := range []int64{v.files, v.dirs, v.symlinks, v.fifos, v.bytes} {
			b = binary.AppendUvarint(b, uint64(n))
		}
		var flags byte
		if v.reread {
			flags = 1
		}
		b = append(b, flags)
	}
	return b
}

// LoadPlain adds the totals encoded in b (by AppendPlain) to t. On an
// error (wrapping ErrTotalsEncoding) t is unchanged.
func (t *TreeTotals) LoadPlain(b []byte) error {
	rest, ok := cutPrefix(b, totalsMagic)
	if !ok {
		return fmt.Errorf("%w: no header", ErrTotalsEncoding)
	}
	n, k := binary.Uvarint(rest)
	if k <= 0 || n > uint64(len(rest))/(cas.HashSize+6) {
		return fmt.Errorf("%w: bad count", ErrTotalsEncoding)
	}
	rest = rest[k:]
	got := make(map[cas.Hash]*treeTotal, n)
	for i := range n {
		if len(rest) < cas.HashSize {
			return fmt.Errorf("%w: entry %d cut short", ErrTotalsEncoding, i)
		}
		var h cas.Hash
		copy(h[:], rest)
		rest = rest[cas.HashSize:]
		var nums [5]int64
		for j := range nums {
			u, k := binary.Uvarint(rest)
			if k <= 0 || u > math.MaxInt64 {
				return fmt.Errorf("%w: entry %d: bad count", ErrTotalsEncoding, i)
			}
			nums[j], rest = int64(u), rest[k:]
		}
		if len(rest) < 1 || rest[0] > 1 {
			return fmt.Errorf("%w: entry %d: bad flags", ErrTotalsEncoding, i)
		}
		got[h] = &treeTotal{files: nums[0], dirs: nums[1], symlinks: nums[2], fifos: nums[3], bytes: nums[4], reread: rest[0] == 1}
		rest = rest[1:]
	}
	if len(rest) != 0 {
		return fmt.Errorf("%w: %d bytes after the last entry", ErrTotalsEncoding, len(rest))
	}
	for h, v := range got {
		t.put(h, v)
	}
	return nil
}

func cutPrefix(b []byte, p string) ([]byte, bool) {
	if len(b) < len(p) || string(b[:len(p)]) != p {
		return nil, false
	}
	return b[len(p):], true
}
