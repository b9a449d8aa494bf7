package cas

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// membersByBlock maps each block of b (by its place in its pack) to the
// indexes in hs of its members.
func membersByBlock(t *testing.T, b *Badger, hs []Hash) map[[2]int64][]int {
	t.Helper()
	index := map[string]int{}
	for i, h := range hs {
		index[string(BlobKey(h))] = i
	}
	out := map[[2]int64][]int{}
	err := b.scanPacked(context.Background(), func(key []byte, p packPtr, _ []byte) error {
		if i, ok := index[string(key)]; ok && p.member {
			out[p.loc()] = append(out[p.loc()], i)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestBlockCacheByPointer: a member of a block in the cache is read
// without reading the pack again, and a member of another block never
// gets the cached one. The pack is damaged whole after the first read:
// the cached block's members still read, the others are ErrCorrupt.
func TestBlockCacheByPointer(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	files := blockFiles(60)
	w := newTestStore(t, openTestBadger(t, dir))
	hs := putFiles(t, w, files)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	b := openTestBadger(t, dir)
	s := newTestStore(t, b)
	var first, other []int
	for _, m := range membersByBlock(t, b, hs) {
		switch {
		case first == nil && len(m) >= 3:
			first = m
		case other == nil:
			other = m
		}
	}
	if first == nil || other == nil {
		t.Fatal("want two blocks, one of three members or more")
	}
	if got, err := s.GetBlob(ctx, hs[first[0]]); err != nil || !bytes.Equal(got, files[first[0]]) {
		t.Fatalf("first member: %v", err)
	}
	name := filepath.Join(dir, packName(1))
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	for i := len(packMagic); i < len(data); i++ {
		data[i] ^= 0x5a
	}
	if err := os.WriteFile(name, data, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, i := range first[1:] {
		if got, err := s.GetBlob(ctx, hs[i]); err != nil || !bytes.Equal(got, files[i]) {
			t.Errorf("member %d of the cached block: %d bytes, %v", i, len(got), err)
		}
	}
	for _, i := range other {
		if _, err := s.GetBlob(ctx, hs[i]); !errors.Is(err, ErrCorrupt) {
			t.Errorf("member %d of a damaged block not cached: %v, want ErrCorrupt", i, err)
		}
	}
}

// TestBlockCacheRecycled: readers of many blocks at once, more than the
// cache holds, so evicted contents are recycled while others read. What
// each read returned must stay intact (run under -race too).
func TestBlockCacheRecycled(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	files := blockFiles(400)
	w := newTestStore(t, openTestBadger(t, dir))
	hs := putFiles(t, w, files)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	b := openTestBadger(t, dir)
	if n := len(membersByBlock(t, b, hs)); n < 2*len(blockCache{}.ents) {
		t.Fatalf("%d blocks, want more than the cache holds", n)
	}
	s := newTestStore(t, b)
	const readers = 6
	got := make([][][]byte, readers)
	var wg sync.WaitGroup
	errs := make(chan error, readers)
	for r := range readers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range 3 * len(hs) {
				i := (k*(2*r+1) + r*37) % len(hs)
				data, err := s.GetBlob(ctx, hs[i])
				if err != nil {
					errs <- fmt.Errorf("reader %d, file %d: %w", r, i, err)
					return
				}
				got[r] = append(got[r], data)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	for r := range readers {
		for k, data := range got[r] {
			i := (k*(2*r+1) + r*37) % len(hs)
			if !bytes.Equal(data, files[i]) {
				t.Fatalf("reader %d, file %d: changed after its read", r, i)
			}
		}
	}
}

// TestPooledReadsKept: pack reads go into recycled buffers, given back
// once decoded. A value that shares its buffer (stored raw: a blob, or
// a block and so its cached content) must never be given back. Raw and
// zstd values, single and in blocks, are read by several readers at
// once, beside Verify; what each read returned, and the blocks the
// cache holds, must stay intact.
func TestPooledReadsKept(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	var files [][]byte
	for i := range 12 {
		files = append(files, randBytes(uint64(500+i), 70<<10+i*9000))  // raw, single
		files = append(files, textBytes(uint64(600+i), 70<<10+i*9000))  // zstd, single
		files = append(files, randBytes(uint64(700+i), 3000+i*100))     // raw blocks
		files = append(files, textBytes(uint64(800+i), 5000+i*300))     // zstd blocks
		files = append(files, randBytes(uint64(900+i), 300<<10+i*1000)) // raw, larger
	}
	w := newTestStore(t, openTestBadger(t, dir))
	// The incompressible members first, alone: their blocks are raw.
	hs := putFirst(t, w, files, func(i int) bool { return i%5 == 2 })
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	b := openTestBadger(t, dir)
	s := newTestStore(t, b)
	ptrs := map[string]packPtr{}
	if err := b.scanPacked(ctx, func(key []byte, p packPtr, _ []byte) error {
		ptrs[string(key)] = p
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	read := func(i int) []byte {
		r, err := s.Open(ctx, hs[i])
		if err != nil {
			t.Fatal(err)
		}
		data, err := io.ReadAll(r)
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	// Each block member just read is cached: it must survive the reads
	// of every other value.
	for i := range files {
		if i%5 != 2 && i%5 != 3 {
			continue
		}
		read(i)
		p, ok := ptrs[string(BlobKey(hs[i]))]
		if !ok || !p.member {
			t.Fatalf("file %d is not a block member", i)
		}
		for j := range files {
			if j%5 != 2 && j%5 != 3 {
				read(j)
			}
		}
		got, _, ok := s.blocks.member(blockKeyOf(p.crc, int(p.size)), uint64(p.memOff), uint64(p.memLen), hs[i], true)
		if !ok || !bytes.Equal(got, files[i]) {
			t.Fatalf("file %d: its cached block changed after other reads", i)
		}
	}
	// Chunked files, raw and zstd, for Verify, which lends what it reads.
	big := [][]byte{randBytes(950, 2<<20), textBytes(951, 2<<20)}
	bigHs := putFiles(t, s, big)
	const readers = 4
	got := make([][][]byte, readers)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for k := range 4 * len(files) {
			h := hs[k%len(hs)]
			if k%3 == 0 {
				h = bigHs[k%2]
			}
			if err := s.Verify(ctx, h, nil); err != nil {
				t.Errorf("Verify: %v", err)
				return
			}
		}
	}()
	for r := range readers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range 2 * len(files) {
				i := (k*(2*r+1) + r*7) % len(files)
				data, err := s.GetBlob(ctx, hs[i])
				if err != nil {
					t.Errorf("reader %d, file %d: %v", r, i, err)
					return
				}
				got[r] = append(got[r], data)
			}
		}()
	}
	wg.Wait()
	for r := range readers {
		for k, data := range got[r] {
			i := (k*(2*r+1) + r*7) % len(files)
			if !bytes.Equal(data, files[i]) {
				t.Fatalf("reader %d, file %d: changed after its read", r, i)
			}
		}
	}
}

// TestScratchReadsOwned: a blob written by this process (a read-only
// store's scratch, a deferred store's uncommitted layer) is decoded from
// the layer's own value. One stored raw must come back as a copy: a
// caller that changes what it got changes nothing stored.
func TestScratchReadsOwned(t *testing.T) {
	ctx := context.Background()
	files := [][]byte{
		textBytes(1, 40),     // raw: too short to compress
		randBytes(2, 200),    // raw, under packThreshold
		randBytes(3, 5000),   // raw, maybe in a block
		textBytes(4, 3000),   // zstd
		randBytes(5, 80<<10), // raw, single
	}
	for name, o := range map[string]BadgerOptions{"read-only": {ReadOnly: true}, "deferred": {Deferred: true}} {
		if o.Deferred && !canLockDir {
			continue
		}
		dir := t.TempDir()
		openTestBadger(t, dir).Close()
		b, err := OpenBadger(ctx, dir, o)
		if err != nil {
			t.Fatal(err)
		}
		s := newTestStore(t, b)
		hs := putFiles(t, s, files)
		for i, h := range hs {
			got, err := s.GetBlob(ctx, h)
			if err != nil || !bytes.Equal(got, files[i]) {
				t.Fatalf("%s: file %d: %v", name, i, err)
			}
			for j := range got {
				got[j] ^= 0xff
			}
			if again, err := s.GetBlob(ctx, h); err != nil || !bytes.Equal(again, files[i]) {
				t.Errorf("%s: file %d after its first read was changed: %v", name, i, err)
			}
		}
	}
}

// TestPackPtrDecodeFree: every pack read decodes a pointer; doing so
// allocates nothing.
func TestPackPtrDecodeFree(t *testing.T) {
	b := packPtr{pack: 3, off: 1 << 20, size: 70000, crc: 7, member: true, memOff: 100, memLen: 5000}.encode()
	if n := testing.AllocsPerRun(100, func() {
		if _, err := decodePackPtr(b); err != nil {
			t.Fatal(err)
		}
	}); n != 0 {
		t.Errorf("decodePackPtr: %v allocations, want none", n)
	}
}

// TestVerifyForgedCache: Verify checks a member against its address
// even when the cache holds its block (a forged entry, under the key of
// a block now damaged on disk): it is ErrCorrupt, not nil.
func TestVerifyForgedCache(t *testing.T) {
	ctx := context.Background()
	files := blockFiles(30)[:30]
	s, _ := damagedPack(t, files, func(data []byte) {
		for i := len(packMagic); i < len(data); i++ {
			data[i] ^= 0x5a
		}
	})
	b := s.Backend().(*Badger)
	n := 0
	if err := b.scanPacked(ctx, func(key []byte, p packPtr, _ []byte) error {
		if !p.member {
			return nil
		}
		h := Hash(key[len(prefixBlob):])
		s.blocks.put(blockKeyOf(p.crc, int(p.size)), bytes.Repeat([]byte{'z'}, 200<<10), false)
		if err := s.Verify(ctx, h, nil); !errors.Is(err, ErrCorrupt) {
			t.Errorf("member %s: Verify = %v, want ErrCorrupt", h.Short(), err)
		}
		n++
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Fatal("no block members")
	}
}
