package gitindex

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"math/bits"
)

// bitmap is where a bitmap's words are in an index file: git's EWAH
// format, a sequence of 64-bit big-endian words. Each run-length word
// holds a running bit (bit 0), a count of 64-bit words all of that bit
// (bits 1-32) and a count of literal words that follow it (bits
// 33-63). A literal word's bit i is position i of its 64.
type bitmap struct {
	off   int64
	words uint32
}

// iter returns an iterator over the set bits of b, in file r.
func (b bitmap) iter(r io.ReaderAt) *ewah {
	sr := io.NewSectionReader(r, b.off, int64(b.words)*8)
	return &ewah{r: bufio.NewReaderSize(sr, 4<<10), words: b.words}
}

// maxBit bounds a bitmap's length, far past any index's entries, so
// that positions cannot overflow.
const maxBit = 1 << 62

// ewah reads the set bits of a bitmap in increasing order, as git's
// ewah_each_bit reports them. It reads the words as it needs them.
type ewah struct {
	r     *bufio.Reader
	words uint32 // words not read yet
	pos   uint64 // the position after the bits gone through
	ones  uint64 // set bits left of the current run, from pos
	lits  uint32 // literal words left after the current one
	lit   uint64 // the bits of the current literal word not reported
	base  uint64 // the position of lit's bit 0
}

// next returns the position of the next set bit; ok is false after
// the last. A literal word counted past the bitmap's end is an error.
func (e *ewah) next() (pos uint64, ok bool, err error) {
	for {
		switch {
		case e.ones > 0:
			e.ones--
			e.pos++
			return e.pos - 1, true, nil
		case e.lit != 0:
			i := bits.TrailingZeros64(e.lit)
			e.lit &= e.lit - 1
			return e.base + uint64(i), true, nil
		case e.lits > 0:
			w, err := e.word()
			if err != nil {
				return 0, false, err
			}
			e.lits--
			e.lit, e.base = w, e.pos
			e.pos += 64
		case e.words > 0:
			w, err := e.word()
			if err != nil {
				return 0, false, err
			}
			run := (w >> 1 & (1<<32 - 1)) * 64
			e.lits = uint32(w >> 33)
			if e.pos+run+uint64(e.lits)*64 > maxBit {
				return 0, false, fmt.Errorf("%w: bitmap: over %d bits", ErrFormat, uint64(maxBit))
			}
			if w&1 != 0 {
				e.ones = run
			} else {
				e.pos += run
			}
		default:
			return 0, false, nil
		}
	}
}

// takeRun consumes what is left of the run of ones the bitmap is in,
// and returns its first position and length; n is 0 outside a run.
// A run may hold billions of bits: countBits takes it whole.
func (e *ewah) takeRun() (start, n uint64) {
	start, n = e.pos, e.ones
	e.pos += e.ones
	e.ones = 0
	return start, n
}

func (e *ewah) word() (uint64, error) {
	if e.words == 0 {
		return 0, fmt.Errorf("%w: bitmap: literal words past its end", ErrFormat)
	}
	var b [8]byte
	if _, err := io.ReadFull(e.r, b[:]); err != nil {
		return 0, fmt.Errorf("%w: bitmap: %v", ErrFormat, err)
	}
	e.words--
	return binary.BigEndian.Uint64(b[:]), nil
}
