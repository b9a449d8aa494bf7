// Pack index files (.idx, version 2): the fan-out table and the binary
// search from an object id to its offset in the pack.

package ref

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"strings"
)

type packIdx struct {
	idx, pack string
	n         uint32
	fanout    [256]uint32
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
