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
// offset and length in the block's content. Reading a member returns a
// stored form of codec codecBlock (see decodeBlockMember), which
// Store.decode decodes and checks against the member's address as any
// other. Trees and the chunks of large files stay one value each.

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

func (w *Writer) writeBlock(bp blockPutter, content []byte, members []blockMember) error {
	stored := w.s.encodeBlock(w.encodersFor(len(content)), content)
	putBlockBuf(content) // stored is a copy
	if err := bp.putBlock(stored, members); err != nil {
		return err
	}
	w.count(func(s *WriteStats) { s.NewBytes += int64(len(stored)) })
	return nil
}

// encodeBlock returns the stored form of a block's content, as encode
// with enc.
func (s *Store) encodeBlock(enc *encoders, data []byte) []byte {
	if len(data) >= 64 && len(data) <= maxZstdBlob {
		out := enc.EncodeAll(data, append(make([]byte, 0, encodedMax(len(data))), codecZstd))
		if len(out)-1 < len(data)-len(data)/32 {
			return out
		}
	}
	return append(append(make([]byte, 0, 1+len(data)), codecRaw), data...)
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
// (after its codec byte) is rest.
func (s *Store) decodeBlockMember(h Hash, stored []byte) ([]byte, error) {
	return s.decodeMember(h, stored, true)
}

func (s *Store) decodeMember(h Hash, stored []byte, useCache bool) ([]byte, error) {
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
	content, cached, err := s.blockContent(h, rest, useCache)
	if err != nil {
		return nil, err
	}
	if off > uint64(len(content)) || size > uint64(len(content))-off {
		return nil, bad("span past the block's end")
	}
	out := bytes.Clone(content[off : off+size])
	if cached && Sum(out) != h {
		// The cache's key is a checksum, not the block: decode afresh.
		s.blocks.forget(rest)
		return s.decodeMember(h, stored, false)
	}
	return out, nil
}

// blockContent returns the content of a block from its stored form, and
// whether it came from the cache of recently decoded blocks.
func (s *Store) blockContent(h Hash, stored []byte, useCache bool) ([]byte, bool, error) {
	if useCache {
		if content, ok := s.blocks.get(stored); ok {
			return content, true, nil
		}
	}
	var content []byte
	switch stored[0] {
	case codecRaw:
		return stored[1:], false, nil
	case codecZstd:
		var err error
		content, err = s.dec.DecodeAll(stored[1:], nil)
		if err != nil {
			return nil, false, fmt.Errorf("%w: blob %s: block: %v", ErrCorrupt, h.Short(), err)
		}
	default:
		return nil, false, fmt.Errorf("%w: blob %s: block member block codec %d unknown", ErrCorrupt, h.Short(), stored[0])
	}
	s.blocks.put(stored, content)
	return content, false, nil
}

// blockCache keeps the last few blocks decoded: files read one after
// another (a restore of files captured together, verify) often share a
// block. Keyed by a checksum of the stored block; a member read from it
// is checked against its address before use.
type blockCache struct {
	mu   sync.Mutex
	ents [4]cachedBlock
	next int
}

type cachedBlock struct {
	key     uint64
	content []byte
}

func blockKey(stored []byte) uint64 {
	return uint64(crc32.Checksum(stored, castagnoli))<<32 | uint64(uint32(len(stored)))
}

func (c *blockCache) get(stored []byte) ([]byte, bool) {
	k := blockKey(stored)
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, e := range c.ents {
		if e.content != nil && e.key == k {
			return e.content, true
		}
	}
	return nil, false
}

func (c *blockCache) put(stored, content []byte) {
	k := blockKey(stored)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.ents[c.next] = cachedBlock{key: k, content: content}
	c.next = (c.next + 1) % len(c.ents)
}

func (c *blockCache) forget(stored []byte) {
	k := blockKey(stored)
	c.mu.Lock()
	defer c.mu.Unlock()
	for i := range c.ents {
		if c.ents[i].key == k {
			c.ents[i] = cachedBlock{}
		}
	}
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
