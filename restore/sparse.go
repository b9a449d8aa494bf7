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

// copySparse copies r into the new, empty file f, leaving aligned runs
// of zero blocks as holes, and sets the size at the end (a trailing hole
// too). It returns the number of bytes copied.
func copySparse(f *os.File, r io.Reader) (int64, error) {
	buf := make([]byte, 256<<10)
	var off int64
	for {
		n, rerr := io.ReadFull(r, buf)
		if n > 0 {
			if err := writeNonZero(f, buf[:n], off); err != nil {
				return off, err
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
	// The size, with any trailing hole (ftruncate extends with zeros
	// without allocating).
	if err := f.Truncate(off); err != nil {
		return off, err
	}
	return off, nil
}

// writeNonZero writes chunk at off, skipping whole blocks of zeros.
// Reads fill buf completely but at the end, and buf's size is a multiple
// of holeBlock, so block boundaries stay aligned with the file's.
func writeNonZero(f *os.File, chunk []byte, off int64) error {
	start := -1 // start of the run of data blocks being gathered
	for i := 0; i < len(chunk); i += holeBlock {
		b := chunk[i:min(i+holeBlock, len(chunk))]
		if len(b) == holeBlock && bytes.Equal(b, zeroBlock[:]) {
			if start >= 0 {
				if _, err := f.WriteAt(chunk[start:i], off+int64(start)); err != nil {
					return err
				}
				start = -1
			}
			continue
		}
		if start < 0 {
			start = i
		}
	}
	if start >= 0 {
		if _, err := f.WriteAt(chunk[start:], off+int64(start)); err != nil {
			return err
		}
	}
	return nil
}
