package cas

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/klauspost/compress/zstd"
	"github.com/zeebo/blake3"
)

// Key prefixes in the backend. Everything the cas package writes lives
// under these; callers keep their own records under other prefixes.
var (
	prefixBlob  = []byte("b/") // content hash -> codec byte + payload
	prefixIndex = []byte("x/") // content hash of a chunked file -> chunk list
)

// Codec bytes that start every stored blob.
const (
	codecRaw  byte = 0
	codecZstd byte = 1
)

// maxZstdBlob is the largest content stored zstd-compressed; it is also
// the decoder's memory limit. Larger content (only possible through
// PutBlob) is stored raw, so that everything written can be read back.
const maxZstdBlob = 4 << 20

// smallValue: a value of its own this small (a tree, mostly; small
// files go into blocks) is compressed at zstd's fastest level. The
// default level clears about a megabyte of tables per call: on the 40
// trees a turn writes, that cost more than it saved.
const smallValue = 64 << 10

// indexVersion starts every chunk-list record.
const indexVersion byte = 1

// SmallFileMax is the largest content stored as a single blob; larger
// content is split into chunks (see Chunker).
const SmallFileMax = MaxChunk

// EmptyHash is the address of the empty content, which is never stored.
// It is written out (TestHash checks it): Sum at process start would
// make a hasher, 11 KB of heap, before any command needs one.
var EmptyHash = Hash{
	0xaf, 0x13, 0x49, 0xb9, 0xf5, 0xf9, 0xa1, 0xa6, 0xa0, 0x40, 0x4d, 0xea, 0x36, 0xdc, 0xc9, 0x49,
	0x9b, 0xcb, 0x25, 0xc9, 0xad, 0xc1, 0x12, 0xb7, 0xcc, 0x9a, 0x93, 0xca, 0xe4, 0x1f, 0x32, 0x62,
}

// BlobKey returns the backend key of the blob with address h.
func BlobKey(h Hash) []byte { return append(bytes.Clone(prefixBlob), h[:]...) }

// IndexKey returns the backend key of the chunk list of content h.
func IndexKey(h Hash) []byte { return append(bytes.Clone(prefixIndex), h[:]...) }

// Store is a content-addressed store of blobs and chunked files over a
// Backend. It is safe for concurrent use.
type Store struct {
	b      Backend
	enc    *encoders // zstd's default level: blocks, and values over smallValue
	fast   *encoders // its fastest level: smaller values (trees mostly)
	dec    *zstd.Decoder
	blocks blockCache // blocks decoded lately (block.go)
	warmup int64      // a Writer's first content, at the fastest level (level.go)
	budget int64      // a Writer's content before the fastest level again (level.go)
}

// NewStore returns a Store over b.
func NewStore(b Backend) (*Store, error) {
	n := runtime.GOMAXPROCS(0)
	common := []zstd.EOption{zstd.WithWindowSize(1 << 20), zstd.WithEncoderCRC(false)}
	enc, err := newEncoders(n, append(common, zstd.WithEncoderLevel(zstd.SpeedDefault), zstd.WithLowerEncoderMem(true))...)
	if err != nil {
		return nil, err
	}
	// The fastest level without WithLowerEncoderMem: its buffers are
	// then made at full size once, not grown from 1 KiB by copies that
	// touched twice the pages (about 50 faults in a turn).
	fast, err := newEncoders(n, append(common, zstd.WithEncoderLevel(zstd.SpeedFastest))...)
	if err != nil {
		enc.close()
		return nil, err
	}
	dec, err := zstd.NewReader(nil,
		zstd.WithDecoderConcurrency(0),
		zstd.WithDecoderMaxMemory(maxZstdBlob),
		zstd.WithDecoderMaxWindow(1<<20))
	if err != nil {
		enc.close()
		fast.close()
		return nil, fmt.Errorf("cas: zstd decoder: %w", err)
	}
	return &Store{b: b, enc: enc, fast: fast, dec: dec, warmup: levelWarmup, budget: levelBudget}, nil
}

// Backend returns the backend underneath s.
func (s *Store) Backend() Backend { return s.b }

// Close releases the codecs and closes the backend.
func (s *Store) Close() error {
	s.dec.Close()
	s.enc.close()
	s.fast.close()
	return s.b.Close()
}

// encode returns the stored form of data: zstd when that saves at least
// 1/32 of the size, raw otherwise (and always raw above maxZstdBlob).
func (s *Store) encode(data []byte) []byte {
	return s.encodeTo(make([]byte, 0, encodedMax(len(data))), data)
}

// encodedMax bounds the stored form of n bytes of content: a codec byte,
// then either the raw content or a zstd frame, which encodeTo keeps only
// when it is smaller than the content.
func encodedMax(n int) int { return 1 + n + 64 }

// encodeTo is encode writing into dst[:0]. With cap(dst) at least
// encodedMax(len(data)) it allocates nothing: the zstd frame is only
// kept when shorter than the content, and a longer one (zstd adds at
// most a few bytes per 128 KiB block and a frame header to content it
// cannot compress) fits in the slack.
func (s *Store) encodeTo(dst, data []byte) []byte { return s.encodeWith(s.enc, dst, data) }

// encodeWith is encodeTo with enc for content over smallValue (see
// Writer.encodersFor).
func (s *Store) encodeWith(enc *encoders, dst, data []byte) []byte {
	if len(data) >= 64 && len(data) <= maxZstdBlob {
		out := append(dst[:0], codecZstd)
		if len(data) <= smallValue {
			enc = s.fast
		}
		out = enc.EncodeAll(data, out)
		if len(out)-1 < len(data)-len(data)/32 {
			return out
		}
		dst = out
	}
	out := append(dst[:0], codecRaw)
	return append(out, data...)
}

func (s *Store) decode(h Hash, stored []byte) ([]byte, error) {
	if len(stored) == 0 {
		return nil, fmt.Errorf("%w: blob %s: empty record", ErrCorrupt, h.Short())
	}
	var data []byte
	switch stored[0] {
	case codecRaw:
		data = stored[1:]
	case codecZstd:
		var err error
		data, err = s.dec.DecodeAll(stored[1:], nil)
		if err != nil {
			return nil, fmt.Errorf("%w: blob %s: %v", ErrCorrupt, h.Short(), err)
		}
	case codecBlock:
		return s.decodeBlockMember(h, stored[1:]) // checked against h
	default:
		return nil, fmt.Errorf("%w: blob %s: unknown codec %d", ErrCorrupt, h.Short(), stored[0])
	}
	if Sum(data) != h {
		return nil, fmt.Errorf("%w: blob %s: content does not match its hash", ErrCorrupt, h.Short())
	}
	return data, nil
}

// Writer collects new blobs in a bulk batch. Blobs already present are
// not written again. Call Flush before recording anything that refers
// to the blobs. Flush or Cancel ends the Writer: start a new one for
// more writes.
type Writer struct {
	s     *Store
	batch Batch
	stats WriteStats
	mu    chan struct{}
	fresh freshStore
	block block // small files gathered for a block (block.go)
	// encoded: bytes of content w gave to zstd (see encodersFor).
	encoded atomic.Int64
	// replace: store every blob and chunk list even when the store has
	// one under that address (NewReplacingWriter).
	replace bool
}

// WriteStats counts what a Writer added.
type WriteStats struct {
	NewBlobs    int64 // blobs written
	NewBytes    int64 // their stored (compressed) bytes
	ReusedBlobs int64 // blobs already present
}

// NewWriter starts a batch of writes.
func (s *Store) NewWriter() *Writer {
	w := &Writer{s: s, batch: s.b.NewBatch(), mu: make(chan struct{}, 1)}
	return w
}

// NewReplacingWriter starts a batch of writes that stores everything it
// is given, even content the store already has under that address. It
// is for repair: content read again replaces a stored copy that is
// damaged. The old copy's space is reclaimed by a gc that rewrites its
// pack (one less than half live), unless the pack holds damage still.
func (s *Store) NewReplacingWriter() *Writer {
	w := s.NewWriter()
	w.replace = true
	return w
}

func (w *Writer) count(f func(*WriteStats)) {
	w.mu <- struct{}{}
	f(&w.stats)
	<-w.mu
}

// Stats returns what w has written so far.
func (w *Writer) Stats() WriteStats {
	w.mu <- struct{}{}
	defer func() { <-w.mu }()
	return w.stats
}

// PutBlob stores data as one blob and returns its address.
func (w *Writer) PutBlob(ctx context.Context, data []byte) (Hash, error) {
	h := Sum(data)
	return h, w.putHashed(ctx, h, data, false)
}

// putHashed stores data, whose address is h. A small file's content
// (inBlock) goes into a block when the batch stores blocks.
func (w *Writer) putHashed(ctx context.Context, h Hash, data []byte, inBlock bool) error {
	if len(data) == 0 {
		return nil
	}
	key := BlobKey(h)
	ok := false
	if !w.replace {
		var err error
		if ok, err = w.blobPresent(ctx, h, key); err != nil {
			return err
		}
	}
	if ok {
		w.count(func(s *WriteStats) { s.ReusedBlobs++ })
		return nil
	}
	if bp, ok := w.batch.(blockPutter); ok && inBlock && len(data) <= blockMemberMax {
		if err := w.addToBlock(ctx, bp, key, data); err != nil {
			return err
		}
		w.count(func(s *WriteStats) { s.NewBlobs++ })
		return nil
	}
	// The stored form is built in a recycled buffer when the batch copies
	// what it keeps (the built-in ones do): one allocated per blob, about
	// the size of the content, made a cold capture of 100k files run 73
	// garbage collections instead of 17.
	pc, copies := w.batch.(copyPutter)
	var buf []byte
	if copies {
		buf = getBuf(encodedMax(len(data)))
		defer putBuf(buf)
	} else {
		buf = make([]byte, 0, encodedMax(len(data)))
	}
	val := w.s.encodeWith(w.encodersFor(len(data)), buf, data)
	var err error
	if copies {
		err = pc.putCopy(key, val)
	} else {
		err = w.batch.Put(key, val)
	}
	if err != nil {
		return err
	}
	w.count(func(s *WriteStats) { s.NewBlobs++; s.NewBytes += int64(len(val)) })
	return nil
}

// copyPutter is a Batch that can be handed a value it must copy if it
// keeps it: the caller may reuse the value once putCopy returns.
type copyPutter interface {
	putCopy(key, value []byte) error
}

// Flush writes every pending blob and makes it durable: at once, or, on
// a deferred Badger, with the next commit (its next Sync or Close), in
// the same frame as the records that name them.
func (w *Writer) Flush() error {
	if err := w.flushBlock(); err != nil {
		w.batch.Cancel()
		return err
	}
	if err := w.batch.Flush(); err != nil {
		return err
	}
	w.fresh.forget()
	if d, ok := w.s.b.(interface{ commitsLater() bool }); ok && d.commitsLater() {
		return nil
	}
	return w.s.b.Sync()
}

// Cancel drops pending writes.
func (w *Writer) Cancel() {
	w.block.mu.Lock()
	w.block.open = nil
	w.block.mu.Unlock()
	w.batch.Cancel()
}

// PutFile streams r into the store: content up to SmallFileMax becomes one
// blob; larger content is split into content-defined chunks plus a chunk
// list. sizeHint (the size stat reported, or -1) only sizes the first
// buffer. It returns the content address (BLAKE3 of the whole content)
// and the size read. Memory use is bounded by a few chunks whatever the
// size.
func (w *Writer) PutFile(ctx context.Context, r io.Reader, sizeHint int64) (Hash, int64, error) {
	first := int64(SmallFileMax + 1)
	if sizeHint >= 0 && sizeHint < first {
		first = sizeHint + 1
	}
	head := getBuf(int(first))
	defer putBuf(head)
	n, err := io.ReadFull(r, head)
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		h := Sum(head[:n])
		return h, int64(n), w.putHashed(ctx, h, head[:n], true)
	}
	if err != nil {
		return Hash{}, 0, err
	}
	if int64(n) < int64(SmallFileMax+1) {
		// The file grew past its hint: read on up to the single-blob limit.
		rest := make([]byte, SmallFileMax+1-n)
		m, err := io.ReadFull(r, rest)
		head = append(head, rest[:m]...)
		if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			h, err := w.PutBlob(ctx, head)
			return h, int64(len(head)), err
		}
		if err != nil {
			return Hash{}, 0, err
		}
	}
	full := blake3.New()
	var size int64
	var index []byte
	index = append(index, indexVersion)
	ch := NewChunker(io.MultiReader(bytes.NewReader(head), r))
	for {
		if err := ctx.Err(); err != nil {
			return Hash{}, 0, err
		}
		chunk, err := ch.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return Hash{}, 0, err
		}
		_, _ = full.Write(chunk)
		size += int64(len(chunk))
		ck := Sum(chunk)
		if err := w.putHashed(ctx, ck, chunk, false); err != nil {
			return Hash{}, 0, err
		}
		index = append(index, ck[:]...)
		index = binary.AppendUvarint(index, uint64(len(chunk)))
	}
	var h Hash
	copy(h[:], full.Sum(nil))
	key := IndexKey(h)
	ok := false
	if !w.replace {
		if ok, err = w.s.b.Has(ctx, key); err != nil {
			return Hash{}, 0, err
		}
	}
	if !ok {
		if err := w.batch.Put(key, index); err != nil {
			return Hash{}, 0, err
		}
		w.count(func(s *WriteStats) { s.NewBytes += int64(len(index)) })
	}
	return h, size, nil
}

// Read buffers of PutFile, recycled by power-of-two size class from
// 4 KiB to 1 MiB (SmallFileMax+1 fits the largest): a capture reads
// every file into one, and allocating (and zeroing) them anew cost more
// than the allocation itself, in the garbage collector.
const (
	bufMinShift = 12
	bufClasses  = 9 // 4 KiB .. 1 MiB
)

var bufPools [bufClasses]sync.Pool

func bufClass(n int) int {
	c := 0
	for n > 1<<(bufMinShift+c) {
		c++
	}
	return c
}

// getBuf returns a buffer of length n; its contents are undefined.
func getBuf(n int) []byte {
	c := bufClass(n)
	if c >= bufClasses {
		return make([]byte, n)
	}
	if v, ok := bufPools[c].Get().(*[]byte); ok {
		return (*v)[:n]
	}
	return make([]byte, n, 1<<(bufMinShift+c))
}

// putBuf recycles a buffer from getBuf. Nothing may use it afterwards.
func putBuf(b []byte) {
	c := bufClass(cap(b))
	if c >= bufClasses || cap(b) != 1<<(bufMinShift+c) {
		return
	}
	b = b[:0]
	bufPools[c].Put(&b)
}

// GetBlob returns the content of blob h, verified against h.
func (s *Store) GetBlob(ctx context.Context, h Hash) ([]byte, error) {
	if h == EmptyHash {
		return []byte{}, nil
	}
	ref, err := s.getRef(ctx, h)
	if err != nil {
		if errors.Is(err, ErrNotFound) {
			return nil, fmt.Errorf("cas: blob %s: %w", h.Short(), ErrNotFound)
		}
		return nil, err
	}
	if ref.member {
		return s.getMember(h, ref.ptr, true, false)
	}
	data, err := s.decode(h, ref.stored)
	if len(ref.stored) == 0 || err != nil {
		return data, err
	}
	switch codec := ref.stored[0]; {
	case codec == codecZstd && ref.pooled:
		putBuf(ref.stored) // decoded into a buffer of its own
	case codec == codecRaw && ref.shared:
		data = bytes.Clone(data) // the content is the stored value's
	}
	return data, nil
}

// HasContent reports whether content h (a blob or a chunked file) is
// stored. It does not check the chunks of a chunked file.
func (s *Store) HasContent(ctx context.Context, h Hash) (bool, error) {
	if h == EmptyHash {
		return true, nil
	}
	ok, err := s.b.Has(ctx, BlobKey(h))
	if err != nil || ok {
		return ok, err
	}
	return s.b.Has(ctx, IndexKey(h))
}
