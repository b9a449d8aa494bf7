package cas

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"io"
	"sync"

	"github.com/zeebo/blake3"
)

// ChunkRef is one chunk of a chunked file.
type ChunkRef struct {
	Hash Hash
	Size int64
}

// decodeIndex parses a chunk list record of content h.
func decodeIndex(h Hash, rec []byte) ([]ChunkRef, error) {
	if len(rec) == 0 || rec[0] != indexVersion {
		return nil, fmt.Errorf("%w: chunk list of %s: bad version", ErrCorrupt, h.Short())
	}
	rec = rec[1:]
	var refs []ChunkRef
	for len(rec) > 0 {
		if len(rec) < HashSize+1 {
			return nil, fmt.Errorf("%w: chunk list of %s: truncated", ErrCorrupt, h.Short())
		}
		var r ChunkRef
		copy(r.Hash[:], rec[:HashSize])
		size, n := binary.Uvarint(rec[HashSize:])
		if n <= 0 || size == 0 || size > MaxChunk {
			return nil, fmt.Errorf("%w: chunk list of %s: bad chunk size", ErrCorrupt, h.Short())
		}
		r.Size = int64(size)
		refs = append(refs, r)
		rec = rec[HashSize+n:]
	}
	return refs, nil
}

// Chunks returns the chunk list of content h, or (nil, false) when h is
// stored as a single blob (or is the empty content).
func (s *Store) Chunks(ctx context.Context, h Hash) ([]ChunkRef, bool, error) {
	if h == EmptyHash {
		return nil, false, nil
	}
	rec, err := s.b.Get(ctx, IndexKey(h))
	if errors.Is(err, ErrNotFound) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	refs, err := decodeIndex(h, rec)
	if err != nil {
		return nil, false, err
	}
	return refs, true, nil
}

// Open returns a reader of content h. Every blob is verified against its
// hash when read, and a chunked file's whole content against h at the
// end: a mismatch surfaces as an error wrapping ErrCorrupt, never as
// wrong bytes followed by a clean io.EOF. A missing blob is an error
// wrapping ErrNotFound.
func (s *Store) Open(ctx context.Context, h Hash) (io.Reader, error) {
	if h == EmptyHash {
		return bytes.NewReader(nil), nil
	}
	refs, chunked, err := s.Chunks(ctx, h)
	if err != nil {
		return nil, err
	}
	if !chunked {
		data, err := s.GetBlob(ctx, h)
		if err != nil {
			return nil, err
		}
		return bytes.NewReader(data), nil
	}
	return &chunkReader{ctx: ctx, s: s, want: h, refs: refs, full: blake3.New()}, nil
}

type chunkReader struct {
	ctx  context.Context
	s    *Store
	want Hash
	refs []ChunkRef
	cur  []byte
	full hash.Hash
	err  error
}

func (r *chunkReader) Read(p []byte) (int, error) {
	for len(r.cur) == 0 {
		if r.err != nil {
			return 0, r.err
		}
		if len(r.refs) == 0 {
			var got Hash
			copy(got[:], r.full.Sum(nil))
			if got != r.want {
				r.err = fmt.Errorf("%w: file %s: chunks do not add up to its hash", ErrCorrupt, r.want.Short())
			} else {
				r.err = io.EOF
			}
			return 0, r.err
		}
		ref := r.refs[0]
		r.refs = r.refs[1:]
		data, err := r.s.GetBlob(r.ctx, ref.Hash)
		if err != nil {
			r.err = fmt.Errorf("cas: file %s: %w", r.want.Short(), err)
			return 0, r.err
		}
		if int64(len(data)) != ref.Size {
			r.err = fmt.Errorf("%w: file %s: chunk %s has the wrong size", ErrCorrupt, r.want.Short(), ref.Hash.Short())
			return 0, r.err
		}
		_, _ = r.full.Write(data)
		r.cur = data
	}
	n := copy(p, r.cur)
	r.cur = r.cur[n:]
	return n, nil
}

// Verify reads content h completely, checking every blob. Chunks already
// in seen are skipped and newly verified ones added (pass nil to check
// everything).
func (s *Store) Verify(ctx context.Context, h Hash, seen map[Hash]bool) error {
	if seen != nil && seen[h] {
		return nil
	}
	refs, chunked, err := s.Chunks(ctx, h)
	if err != nil {
		return err
	}
	if !chunked {
		if err := s.checkBlob(ctx, h); err != nil {
			return err
		}
	} else {
		full := blake3.New()
		for _, ref := range refs {
			var size int64
			err := s.viewBlob(ctx, ref.Hash, func(data []byte) {
				size = int64(len(data))
				_, _ = full.Write(data)
			})
			if err != nil {
				return fmt.Errorf("cas: file %s: %w", h.Short(), err)
			}
			if size != ref.Size {
				return fmt.Errorf("%w: file %s: chunk %s has the wrong size", ErrCorrupt, h.Short(), ref.Hash.Short())
			}
		}
		var got Hash
		copy(got[:], full.Sum(nil))
		if got != h {
			return fmt.Errorf("%w: file %s: chunks do not add up to its hash", ErrCorrupt, h.Short())
		}
	}
	if seen != nil {
		seen[h] = true
	}
	return nil
}

// hashBufs holds HashReader's read buffers: restores hash every path
// they replace, twice, so a fresh buffer per file would dominate small
// files.
var hashBufs = sync.Pool{New: func() any { b := make([]byte, 256<<10); return &b }}

// HashReader returns the content address of everything r yields, and its
// length, without storing anything. It checks ctx before every read.
func HashReader(ctx context.Context, r io.Reader) (Hash, int64, error) {
	h := blake3.New()
	bp := hashBufs.Get().(*[]byte)
	defer hashBufs.Put(bp)
	buf := *bp
	var n int64
	for {
		if err := ctx.Err(); err != nil {
			return Hash{}, n, err
		}
		k, err := r.Read(buf)
		if k > 0 {
			_, _ = h.Write(buf[:k])
			n += int64(k)
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return Hash{}, n, err
		}
	}
	var out Hash
	copy(out[:], h.Sum(nil))
	return out, n, nil
}
