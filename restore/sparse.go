package restore

import (
	"bytes"
	"errors"
	"io"
	"os"
)

// holeBlock is the unit of zeros copySparse leaves as a hole: a run of
// whole, aligned blocks of zeros is skipped (seeked over), never written,
// so the file system allocates nothing for it.
const holeBlock = 4096

var zeroBlock [holeBlock]byte

// copyBufSize is the size of copySparse's reads, a multiple of holeBlock.
const copyBufSize = 256 << 10

// copySparse copies r into the new, empty file f through buf (nil: one
// of copyBufSize is made; its length must be a multiple of holeBlock),
// leaving aligned runs of zero blocks as holes, and sets the size at the
// end if it ends in a hole. It returns the number of bytes copied.
func copySparse(f *os.File, r io.Reader, buf []byte) (int64, error) {
	if buf == nil {
		buf = make([]byte, copyBufSize)
	}
	var off, end int64 // bytes read; end of the data written
	for {
		n, rerr := io.ReadFull(r, buf)
		if n > 0 {
			last, err := writeNonZero(f, buf[:n], off)
			if err != nil {
				return off, err
			}
			if last > 0 {
				end = off + int64(last)
			}
			off += int64(n)
		}
		if errors.Is(rerr, io.EOF) || errors.Is(rerr, io.ErrUnexpectedEOF) {
			break
		}
		if rerr != nil {
			return off, rerr
		}
	}
	// The size, with a trailing hole (ftruncate extends with zeros
	// without allocating); a file that ends in data has it already.
	if end < off {
		if err := f.Truncate(off); err != nil {
			return off, err
		}
	}
	return off, nil
}

// writeNonZero writes chunk at off, skipping whole blocks of zeros, and
// returns the end (in chunk) of the last data it wrote, 0 if none.
// Reads fill buf completely but at the end, and buf's size is a multiple
// of holeBlock, so block boundaries stay aligned with the file's.
func writeNonZero(f *os.File, chunk []byte, off int64) (int, error) {
	last := 0
	start := -1 // start of the run of data blocks being gathered
	for i := 0; i < len(chunk); i += holeBlock {
		b := chunk[i:min(i+holeBlock, len(chunk))]
		if len(b) == holeBlock && bytes.Equal(b, zeroBlock[:]) {
			if start >= 0 {
				if _, err := f.WriteAt(chunk[start:i], off+int64(start)); err != nil {
					return 0, err
				}
				start, last = -1, i
			}
			continue
		}
		if start < 0 {
			start = i
		}
	}
	if start >= 0 {
		if _, err := f.WriteAt(chunk[start:], off+int64(start)); err != nil {
			return 0, err
		}
		last = len(chunk)
	}
	return last, nil
}
