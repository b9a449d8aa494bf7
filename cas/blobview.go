package cas

import (
	"context"
	"errors"
	"fmt"

	"github.com/klauspost/compress/zstd"
)

// checkBlob reads blob h and checks it against h, as GetBlob does, but
// keeps nothing: Verify wants the check only, and a fresh copy of every
// blob it reads cost it page faults.
func (s *Store) checkBlob(ctx context.Context, h Hash) error {
	return s.viewBlob(ctx, h, nil)
}

// viewBlob calls fn, unless nil, with the content of blob h, checked
// against h. The content is lent: valid only during fn, which must not
// change it.
func (s *Store) viewBlob(ctx context.Context, h Hash, fn func(data []byte)) error {
	if h == EmptyHash {
		if fn != nil {
			fn([]byte{})
		}
		return nil
	}
	ref, err := s.getRef(ctx, h)
	if err != nil {
		if errors.Is(err, ErrNotFound) {
			return fmt.Errorf("cas: blob %s: %w", h.Short(), ErrNotFound)
		}
		return err
	}
	if ref.member {
		// From the disk: Verify asks about the stored copy, which may have
		// been damaged since this process cached its block.
		data, err := s.getMember(h, ref.ptr, fn != nil, true)
		if err == nil && fn != nil {
			fn(data)
		}
		return err
	}
	stored := ref.stored
	if len(stored) == 0 || stored[0] != codecZstd {
		// Raw, or a block's form, or damaged: as GetBlob.
		data, err := s.decode(h, stored)
		if err == nil && fn != nil {
			fn(data)
		}
		if ref.pooled && len(stored) > 0 && stored[0] == codecRaw {
			putBuf(stored) // data, in it, is no longer used
		}
		return err
	}
	data, err := s.dec.DecodeAll(stored[1:], frameBuf(stored[1:]))
	if ref.pooled {
		putBuf(stored)
	}
	if err != nil {
		return fmt.Errorf("%w: blob %s: %v", ErrCorrupt, h.Short(), err)
	}
	if Sum(data) != h {
		return fmt.Errorf("%w: blob %s: content does not match its hash", ErrCorrupt, h.Short())
	}
	if fn != nil {
		fn(data)
	}
	putBuf(data) // ours alone, grown or not
	return nil
}

// frameBuf returns an empty buffer of getBuf for the content of zstd
// frame src, or nil if its header gives no size or one over
// maxZstdBlob.
func frameBuf(src []byte) []byte {
	var hdr zstd.Header
	if hdr.Decode(src) != nil || !hdr.HasFCS || hdr.FrameContentSize > maxZstdBlob {
		return nil
	}
	return getBuf(int(hdr.FrameContentSize))[:0]
}
