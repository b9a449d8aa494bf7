package cas

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"sync"
)

// Blocks: small files compressed together (issue #34). One zstd frame
// per small file pays the frame's tables and finds no match in the
// files around it; on the Go source tree, files of up to 64 KiB
// compressed in blocks of 64 to 128 KiB take 12% less room than one
// frame each. Reading one decodes its block: the bound on the block
// keeps that to about 0.1 ms.
//
// A Writer into a Badger store gathers the content of small files in a
// block. A full block (or the last one, at Flush) is encoded as one
// blob's stored form would be (codec byte, then raw or zstd) and goes
// to a pack file as one value. Each member gets its own pointer
// (packMemberTag): the block's place in the pack, and the member's
// offset and length in the block's content. GetBlob takes the pointer
// from Badger unread (getRef) and finds the block in blockCache, or
// reads and decodes it; the member is checked against its address as
// any blob. Badger.Get returns a stored form of codec codecBlock (see
// decodeBlockMember), which Store.decode decodes and checks the same
// way. Trees and the chunks of large files stay one value each.

const (
	// codecBlock: a member of a block. After the codec byte: uvarint
	// offset and uvarint length of the member in the block's content,
	// then the block's stored form (codecRaw or codecZstd).
	codecBlock byte = 2
	// blockTarget: a block is written once its content reaches this.
	blockTarget = 64 << 10
	// blockMemberMax: content up to this size goes into blocks.
	blockMemberMax = 64 << 10
)

// blockPutter is a Batch that stores blocks: one stored value shared by
// several keys, each naming its member's span of the block's content.
// putBlock copies stored: its caller reuses it once putBlock returns.
type blockPutter interface {
	putBlock(stored []byte, members []blockMember) error
}

// blockMember is one blob in a block.
type blockMember struct {
	key      []byte
	off, len int
}

// block holds a Writer's blocks being filled: one per group (see
// WithBlockGroup, block_group.go), the group "" for files without one.
type block struct {
	mu   sync.Mutex
	open map[string]*openBlock
	tick uint64 // counts additions: an open block's age
}

// openBlock is one block being filled.
type openBlock struct {
	content []byte
	members []blockMember
	last    uint64 // the tick of its last addition
}

// addToBlock puts data, the content of blob key, into the block of its
// group (from ctx), and writes the blocks that are full.
func (w *Writer) addToBlock(ctx context.Context, bp blockPutter, key, data []byte) error {
	full := w.block.add(blockGroup(ctx), key, data)
	for _, ob := range full {
		if err := w.writeBlock(bp, ob.content, ob.members); err != nil {
			return err
		}
	}
	return nil
}

// flushBlock writes the blocks being filled, if any.
func (w *Writer) flushBlock() error {
	bp, ok := w.batch.(blockPutter)
	if !ok {
		return nil
	}
	for _, ob := range w.block.drain() {
		if err := w.writeBlock(bp, ob.content, ob.members); err != nil {
			return err
		}
	}
	return nil
}

// writeBlock compresses a block into a pooled buffer, which goes back
// once putBlock has copied it: a first capture of a million small files
// compressed 5 GB of blocks, and buffers allocated anew for them had the
// collector run hundreds of times.
func (w *Writer) writeBlock(bp blockPutter, content []byte, members []blockMember) error {
	buf := getBuf(encodedMax(len(content)))
	stored := w.s.encodeBlock(w.encodersFor(len(content)), buf, content)
	putBlockBuf(content) // stored is a copy
	err := bp.putBlock(stored, members)
	n := len(stored)
	putBuf(buf) // putBlock keeps no reference to stored
	if err != nil {
		return err
	}
	w.count(func(s *WriteStats) { s.NewBytes += int64(n) })
	return nil
}

// encodeBlock returns the stored form of a block's content, as encode
// with enc, written into dst[:0] (see encodeTo for its capacity).
func (s *Store) encodeBlock(enc *encoders, dst, data []byte) []byte {
	if len(data) >= 64 && len(data) <= maxZstdBlob {
		out := enc.EncodeAll(data, append(dst[:0], codecZstd))
		if len(out)-1 < len(data)-len(data)/32 {
			return out
		}
		dst = out
	}
	return append(append(dst[:0], codecRaw), data...)
}

// memberValue is the stored form of a block member read from a pack:
// codecBlock, the member's span, then the block's stored form.
func memberValue(off, n int64, block []byte) []byte {
	out := make([]byte, 0, 1+2*binary.MaxVarintLen64+len(block))
	out = append(out, codecBlock)
	out = binary.AppendUvarint(out, uint64(off))
	out = binary.AppendUvarint(out, uint64(n))
	return append(out, block...)
}

// decodeBlockMember returns the content of the member whose stored form
// (after its codec byte) is stored, checked against its address h.
func (s *Store) decodeBlockMember(h Hash, stored []byte) ([]byte, error) {
	rest := stored
	bad := func(what string) error {
		return fmt.Errorf("%w: blob %s: block member %s", ErrCorrupt, h.Short(), what)
	}
	off, n := binary.Uvarint(rest)
	if n <= 0 {
		return nil, bad("offset unreadable")
	}
	rest = rest[n:]
	size, n := binary.Uvarint(rest)
	if n <= 0 {
		return nil, bad("length unreadable")
	}
	rest = rest[n:]
	if len(rest) == 0 {
		return nil, bad("block missing")
	}
	return s.blockMember(h, blockKey(rest), off, size, memberRead{keep: true}, func() ([]byte, bool, error) {
		return rest, false, nil
	})
}

// memberRead says how blockMember reads a member.
type memberRead struct {
	// keep: return a copy of the member; otherwise only check it.
	keep bool
	// pooled: read's block is a buffer of getBuf, given back once
	// decoded unless the content shares it.
	pooled bool
	// disk: read the block from the disk even if the cache holds it.
	// Verify asks whether the stored copy is good, not the one in memory.
	disk bool
}

// blockMember returns the member of span off, size of the block under
// key k, from the cache or else decoded from what read returns, checked
// against its address h (see memberRead). damaged, from read: the block
// failed its checksum, so it is not cached.
func (s *Store) blockMember(h Hash, k uint64, off, size uint64, how memberRead, read func() (block []byte, damaged bool, err error)) ([]byte, error) {
	keep, pooled := how.keep, how.pooled
	if !how.disk {
		if out, found, ok := s.blocks.member(k, off, size, h, keep); found {
			if ok {
				return out, nil
			}
			// The cache's key is a checksum, not the block: decode afresh.
			s.blocks.forget(k)
		}
	}
	stored, damaged, err := read()
	if err != nil {
		return nil, err
	}
	if len(stored) == 0 {
		return nil, fmt.Errorf("%w: blob %s: block member block missing", ErrCorrupt, h.Short())
	}
	content, decoded, err := s.blockContent(h, stored)
	if pooled && (decoded || err != nil) {
		putBuf(stored)
	}
	if err != nil {
		return nil, err
	}
	inside := off <= uint64(len(content)) && size <= uint64(len(content))-off
	var out []byte
	match := false
	if inside {
		out, match = checkSpan(content[off:off+size], h, keep)
	}
	if damaged {
		if decoded {
			putBuf(content)
		}
	} else {
		s.blocks.put(k, content, decoded)
	}
	if !inside {
		return nil, fmt.Errorf("%w: blob %s: block member span past the block's end", ErrCorrupt, h.Short())
	}
	if !match {
		return nil, fmt.Errorf("%w: blob %s: content does not match its hash", ErrCorrupt, h.Short())
	}
	return out, nil
}

// checkSpan reports whether span's hash is h, and returns a copy of it
// if so and keep.
func checkSpan(span []byte, h Hash, keep bool) ([]byte, bool) {
	if Sum(span) != h {
		return nil, false
	}
	if !keep {
		return nil, true
	}
	return bytes.Clone(span), true
}

// blockContent returns the content of a block from its stored form.
// decoded: it was decoded into a buffer of getBuf, which no one else
// holds. Otherwise it shares the stored form's array.
func (s *Store) blockContent(h Hash, stored []byte) (content []byte, decoded bool, err error) {
	switch stored[0] {
	case codecRaw:
		return stored[1:], false, nil
	case codecZstd:
		buf := getBuf(blockBufSize)
		content, err = s.dec.DecodeAll(stored[1:], buf[:0])
		if err != nil {
			putBuf(buf)
			return nil, false, fmt.Errorf("%w: blob %s: block: %v", ErrCorrupt, h.Short(), err)
		}
		return content, true, nil
	default:
		return nil, false, fmt.Errorf("%w: blob %s: block member block codec %d unknown", ErrCorrupt, h.Short(), stored[0])
	}
}

// blockBufSize: a buffer that holds the content of most blocks (up to
// blockTarget plus one member less a byte).
const blockBufSize = blockTarget + blockMemberMax

// blockCache keeps the last few blocks decoded: files read one after
// another (a restore of files captured together, verify) often share a
// block. Keyed by a checksum of the stored block, which a member's
// pack pointer holds; a member read from it is checked against its
// address before use. The contents never leave the cache: members are
// copied out under its lock, so an evicted content can be recycled.
type blockCache struct {
	mu   sync.Mutex
	ents [4]cachedBlock
	next int
}

type cachedBlock struct {
	key     uint64
	content []byte
	pooled  bool // content came from getBuf: recycled when evicted
}

// blockKey is the cache key of a block's stored form.
func blockKey(stored []byte) uint64 {
	return blockKeyOf(crc32.Checksum(stored, castagnoli), len(stored))
}

// blockKeyOf is blockKey from the stored form's CRC-32C and length.
func blockKeyOf(crc uint32, n int) uint64 {
	return uint64(crc)<<32 | uint64(uint32(n))
}

// member looks for span off, n of the block under key k. found: the
// block is cached and long enough; ok: the span's hash is h; out: a
// copy of the span, if ok and keep. The span is checked, and copied,
// under the lock: a content never leaves the cache.
func (c *blockCache) member(k, off, n uint64, h Hash, keep bool) (out []byte, found, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, e := range c.ents {
		if e.content != nil && e.key == k {
			if off > uint64(len(e.content)) || n > uint64(len(e.content))-off {
				return nil, false, false
			}
			out, ok = checkSpan(e.content[off:off+n], h, keep)
			return out, true, ok
		}
	}
	return nil, false, false
}

// put caches content under k. The cache owns content from then on.
func (c *blockCache) put(k uint64, content []byte, pooled bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i := range c.ents {
		if c.ents[i].content != nil && c.ents[i].key == k {
			// Another reader decoded it too: keep one copy.
			c.drop(i)
		}
	}
	c.drop(c.next)
	c.ents[c.next] = cachedBlock{key: k, content: content, pooled: pooled}
	c.next = (c.next + 1) % len(c.ents)
}

func (c *blockCache) forget(k uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i := range c.ents {
		if c.ents[i].key == k {
			c.drop(i)
		}
	}
}

// drop empties entry i, recycling its content. Caller holds c.mu.
func (c *blockCache) drop(i int) {
	if e := c.ents[i]; e.pooled {
		putBuf(e.content)
	}
	c.ents[i] = cachedBlock{}
}

// blobRef is what a refGetter finds under a blob's key: its stored
// form, or the pointer of a block member not read yet.
type blobRef struct {
	stored []byte
	pooled bool // stored is a buffer of getBuf, no one else's
	shared bool // stored is the scratch's own: never changed nor handed out
	ptr    packPtr
	member bool
}

// refGetter is a Backend that can name a block member's block before
// reading it (Badger): a block in the cache is then not read again.
type refGetter interface {
	getRef(ctx context.Context, key []byte) (blobRef, error)
	readBlock(p packPtr) (block []byte, damaged bool, err error)
}

// getRef is Backend.Get of blob h, through getRef if s.b has it.
func (s *Store) getRef(ctx context.Context, h Hash) (blobRef, error) {
	if rg, ok := s.b.(refGetter); ok {
		return rg.getRef(ctx, BlobKey(h))
	}
	v, err := s.b.Get(ctx, BlobKey(h))
	return blobRef{stored: v}, err
}

// getMember returns block member p of blob h, checked against h; with
// keep false, it only checks it and returns nil. disk: read the block
// from its pack even if the cache holds it (Verify).
func (s *Store) getMember(h Hash, p packPtr, keep, disk bool) ([]byte, error) {
	rg := s.b.(refGetter)
	how := memberRead{keep: keep, pooled: true, disk: disk}
	return s.blockMember(h, blockKeyOf(p.crc, int(p.size)), uint64(p.memOff), uint64(p.memLen), how, func() ([]byte, bool, error) {
		return rg.readBlock(p)
	})
}

// Record returns the stored record under key in a form that stands
// alone: codec raw or zstd for a blob, as stores before blocks wrote
// them. A block member is decoded, checked against its hash and encoded
// alone, so a copy elsewhere (a push) never carries a whole block or a
// codec other stores cannot read. Other records come back as stored.
func (s *Store) Record(ctx context.Context, key []byte) ([]byte, error) {
	stored, err := s.b.Get(ctx, key)
	if err != nil {
		return nil, err
	}
	if len(stored) == 0 || stored[0] != codecBlock || !bytes.HasPrefix(key, prefixBlob) || len(key) != len(prefixBlob)+HashSize {
		return stored, nil
	}
	var h Hash
	copy(h[:], key[len(prefixBlob):])
	data, err := s.decode(h, stored)
	if err != nil {
		return nil, err
	}
	return s.encode(data), nil
}
