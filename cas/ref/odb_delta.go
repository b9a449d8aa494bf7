// Inflating objects and applying git deltas (OFS_DELTA, REF_DELTA), with
// every size bounded by maxInMemory.

package ref

import (
	"compress/zlib"
	"encoding/binary"
	"fmt"
	"io"
)

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
