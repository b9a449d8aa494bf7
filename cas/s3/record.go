package s3

import (
	"encoding/binary"
	"fmt"
	"sync"

	"github.com/klauspost/compress/zstd"

	"github.com/turnback/turnback/cas"
)

// Codec bytes of a stored record (package cas's format).
const (
	codecRaw  byte = 0
	codecZstd byte = 1
)

// maxContent bounds what a zstd record may expand to (package cas stores
// nothing larger compressed).
const maxContent = 4 << 20

var decoder = sync.OnceValues(func() (*zstd.Decoder, error) {
	return zstd.NewReader(nil, zstd.WithDecoderConcurrency(0),
		zstd.WithDecoderMaxMemory(maxContent), zstd.WithDecoderMaxWindow(1<<20))
})

// VerifyRecord checks that raw, a stored record of package cas (a
// codec byte, then the content raw or as one zstd frame), holds content
// whose BLAKE3 is h, and returns that content. Anything else is an
// error wrapping ErrCorrupt naming h.
func VerifyRecord(h cas.Hash, raw []byte) ([]byte, error) {
	if len(raw) == 0 {
		return nil, fmt.Errorf("%w: record %s: empty", ErrCorrupt, h)
	}
	var data []byte
	switch raw[0] {
	case codecRaw:
		data = raw[1:]
	case codecZstd:
		dec, err := decoder()
		if err != nil {
			return nil, fmt.Errorf("s3: zstd decoder: %w", err)
		}
		if data, err = dec.DecodeAll(raw[1:], nil); err != nil {
			return nil, fmt.Errorf("%w: record %s: %v", ErrCorrupt, h, err)
		}
	default:
		return nil, fmt.Errorf("%w: record %s: unknown codec %d", ErrCorrupt, h, raw[0])
	}
	if cas.Sum(data) != h {
		return nil, fmt.Errorf("%w: record %s: content does not match its hash", ErrCorrupt, h)
	}
	return data, nil
}

// ParseChunkList decodes a chunk-list record of package cas (version
// byte 1, then per chunk its hash and size as a uvarint). Its chunks'
// content, read in order, must hash to the content's address: only
// reading them proves a chunk list (see package cas), which a pull does
// before it records anything that names the content.
func ParseChunkList(h cas.Hash, raw []byte) ([]cas.ChunkRef, error) {
	if len(raw) < 1 || raw[0] != 1 {
		return nil, fmt.Errorf("%w: chunk list %s: bad version", ErrCorrupt, h)
	}
	rec := raw[1:]
	var refs []cas.ChunkRef
	for len(rec) > 0 {
		if len(rec) < cas.HashSize+1 {
			return nil, fmt.Errorf("%w: chunk list %s: truncated", ErrCorrupt, h)
		}
		var r cas.ChunkRef
		copy(r.Hash[:], rec[:cas.HashSize])
		size, n := binary.Uvarint(rec[cas.HashSize:])
		if n <= 0 || size == 0 || size > cas.MaxChunk {
			return nil, fmt.Errorf("%w: chunk list %s: bad chunk size", ErrCorrupt, h)
		}
		r.Size = int64(size)
		refs = append(refs, r)
		rec = rec[cas.HashSize+n:]
	}
	if len(refs) == 0 {
		return nil, fmt.Errorf("%w: chunk list %s: no chunks", ErrCorrupt, h)
	}
	return refs, nil
}
