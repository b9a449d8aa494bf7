package cas

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// blockFiles returns n small files: text of varied sizes, some random
// bytes, some duplicates, one at the member limit and one just past it.
func blockFiles(n int) [][]byte {
	var out [][]byte
	for i := 0; i < n; i++ {
		switch {
		case i%17 == 0:
			out = append(out, randBytes(uint64(i), 100+i*37%5000))
		case i%29 == 0:
			out = append(out, textBytes(7, 900)) // the same content again
		default:
			out = append(out, textBytes(uint64(i), 10+i*131%9000))
		}
	}
	return append(out, textBytes(1000, blockMemberMax), textBytes(1001, blockMemberMax+1))
}

// putFiles stores files with PutFile in one Writer and flushes it.
func putFiles(t *testing.T, s *Store, files [][]byte) []Hash {
	t.Helper()
	w := s.NewWriter()
	defer w.Cancel()
	return writeFiles(t, w, files)
}

// putFirst puts the files first says come first, then the rest, each
// part through a writer of its own, and returns the hashes in files'
// order. Incompressible members put alone make raw blocks.
func putFirst(t *testing.T, s *Store, files [][]byte, first func(i int) bool) []Hash {
	t.Helper()
	var head, tail []int
	for i := range files {
		if first(i) {
			head = append(head, i)
		} else {
			tail = append(tail, i)
		}
	}
	hs := make([]Hash, len(files))
	for _, part := range [][]int{head, tail} {
		fs := make([][]byte, 0, len(part))
		for _, i := range part {
			fs = append(fs, files[i])
		}
		for k, h := range putFiles(t, s, fs) {
			hs[part[k]] = h
		}
	}
	return hs
}

// writeFiles puts files through w, flushes it and returns their hashes.
func writeFiles(t *testing.T, w *Writer, files [][]byte) []Hash {
	t.Helper()
	ctx := context.Background()
	var hs []Hash
	for _, f := range files {
		h, _, err := w.PutFile(ctx, bytesReader(f), int64(len(f)))
		if err != nil {
			t.Fatal(err)
		}
		hs = append(hs, h)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	return hs
}

// damagedPack puts files into a new Badger store, lets damage change
// the bytes of its first pack file, and opens the store again.
func damagedPack(t *testing.T, files [][]byte, damage func(data []byte)) (*Store, []Hash) {
	t.Helper()
	dir := t.TempDir()
	s := newTestStore(t, openTestBadger(t, dir))
	hs := putFiles(t, s, files)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	name := filepath.Join(dir, packName(1))
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	damage(data)
	if err := os.WriteFile(name, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return newTestStore(t, openTestBadger(t, dir)), hs
}

// countPointers counts the pack pointers of a Badger store by kind.
func countPointers(t *testing.T, b *Badger) (single, members int) {
	t.Helper()
	err := b.scanPacked(context.Background(), func(_ []byte, p packPtr, _ []byte) error {
		if p.member {
			members++
		} else {
			single++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return single, members
}

func TestBlocksRoundTrip(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s := newTestStore(t, openTestBadger(t, dir))
	files := blockFiles(300)
	hs := putFiles(t, s, files)
	// A tree (PutBlob) stays a value of its own.
	w := s.NewWriter()
	tree := textBytes(5000, 3000)
	th, err := w.PutBlob(ctx, tree)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	single, members := countPointers(t, s.Backend().(*Badger))
	if members < 250 {
		t.Errorf("%d block members, want the small files' (about 290)", members)
	}
	if single != 2 { // the file past the member limit, and the tree
		t.Errorf("%d values of their own, want 2", single)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = newTestStore(t, openTestBadger(t, dir))
	for i, h := range hs {
		got, err := s.GetBlob(ctx, h)
		if err != nil || !bytes.Equal(got, files[i]) {
			t.Fatalf("file %d (%d bytes) after reopen: %d bytes, %v", i, len(files[i]), len(got), err)
		}
	}
	if got, err := s.GetBlob(ctx, th); err != nil || !bytes.Equal(got, tree) {
		t.Fatalf("tree after reopen: %v", err)
	}
	// A scan of blobs hands out members in a form decode reads too.
	n := 0
	err = s.Backend().Scan(ctx, prefixBlob, false, func(k, v []byte) error {
		var h Hash
		copy(h[:], k[len(prefixBlob):])
		if _, err := s.decode(h, v); err != nil {
			return err
		}
		n++
		return nil
	})
	if err != nil || n < len(files)-20 {
		t.Fatalf("scan decoded %d blobs: %v", n, err)
	}
}

// TestBlocksSmaller: the reason for blocks. Small text files take less
// room gathered in blocks than one zstd frame each (a Memory backend
// stores each blob alone).
func TestBlocksSmaller(t *testing.T) {
	files := blockFiles(400)
	s := newTestStore(t, openTestBadger(t, t.TempDir()))
	w := s.NewWriter()
	writeFiles(t, w, files)
	blocked := w.Stats().NewBytes
	m := newTestStore(t, NewMemory())
	w = m.NewWriter()
	writeFiles(t, w, files)
	alone := w.Stats().NewBytes
	if blocked >= alone*9/10 {
		t.Errorf("blocks stored %d bytes, one frame each %d: want at least 10%% less", blocked, alone)
	}
}

// TestBlockDamage: a damaged block fails the read of each member with
// ErrCorrupt, never wrong bytes.
func TestBlockDamage(t *testing.T) {
	ctx := context.Background()
	files := blockFiles(60)[:60]
	s, hs := damagedPack(t, files, func(data []byte) { data[len(packMagic)+100] ^= 0x40 })
	bad := 0
	for i, h := range hs {
		got, err := s.GetBlob(ctx, h)
		switch {
		case err == nil && !bytes.Equal(got, files[i]):
			t.Fatalf("file %d: wrong bytes from a damaged block", i)
		case err != nil && !errors.Is(err, ErrCorrupt):
			t.Fatalf("file %d: %v, want ErrCorrupt", i, err)
		case err != nil:
			bad++
		}
	}
	if bad == 0 {
		t.Fatal("no read noticed the damaged block")
	}
}

// TestBlocksRepack: Reclaim copies a live block out of a mostly dead
// pack once for all its live members, which read back afterwards.
func TestBlocksRepack(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	b := openTestBadger(t, dir)
	s := newTestStore(t, b)
	var files [][]byte
	for i := 0; i < 200; i++ {
		files = append(files, randBytes(uint64(i), 2000+i)) // incompressible: sizes add up
	}
	hs := putFiles(t, s, files)
	// Keep the last ten: they share the last block, the rest of the pack
	// is dead.
	var dels [][]byte
	for i, h := range hs {
		if i < 190 {
			dels = append(dels, BlobKey(h))
		}
	}
	if err := b.Delete(ctx, dels...); err != nil {
		t.Fatal(err)
	}
	if err := b.Reclaim(ctx); err != nil {
		t.Fatal(err)
	}
	for i, h := range hs {
		got, err := s.GetBlob(ctx, h)
		if i >= 190 && (err != nil || !bytes.Equal(got, files[i])) {
			t.Fatalf("live file %d after reclaim: %v", i, err)
		}
		if i < 190 && !errors.Is(err, ErrNotFound) {
			t.Fatalf("deleted file %d after reclaim: %v", i, err)
		}
	}
	// The live members' blocks (one or two) are copied once each, not
	// once per live member: the packs hold them and nothing else.
	list, err := listPacks(dir)
	if err != nil {
		t.Fatal(err)
	}
	var packed int64
	for _, p := range list {
		packed += p.size - int64(len(packMagic))
	}
	live := map[[2]int64]int64{}
	if err := b.scanPacked(ctx, func(_ []byte, p packPtr, _ []byte) error {
		live[p.loc()] = p.size
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	var want int64
	for _, n := range live {
		want += n
	}
	if len(live) > 2 || packed != want {
		t.Errorf("packs hold %d bytes after reclaim, want the %d of the %d live blocks", packed, want, len(live))
	}
	if single, members := countPointers(t, b); single != 0 || members != 10 {
		t.Errorf("%d values and %d members after reclaim, want 0 and 10", single, members)
	}
	// Dropping every member frees the packs.
	dels = dels[:0]
	for _, h := range hs[190:] {
		dels = append(dels, BlobKey(h))
	}
	if err := b.Delete(ctx, dels...); err != nil {
		t.Fatal(err)
	}
	if err := b.Reclaim(ctx); err != nil {
		t.Fatal(err)
	}
	if list, _ := listPacks(dir); len(list) != 0 {
		t.Errorf("%d packs left after every member was deleted", len(list))
	}
}

// TestBlocksMixedWithSingles: a store holding values of the old form
// (one frame each, as every store written before blocks) and blocks
// reads both.
func TestBlocksMixedWithSingles(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s := newTestStore(t, openTestBadger(t, dir))
	old := [][]byte{textBytes(1, 5000), textBytes(2, 300), randBytes(3, 7000)}
	w := s.NewWriter()
	var oh []Hash
	for _, f := range old {
		h, err := w.PutBlob(ctx, f) // PutBlob: one value each, the old way
		if err != nil {
			t.Fatal(err)
		}
		oh = append(oh, h)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	files := blockFiles(50)
	hs := putFiles(t, s, files)
	for i, h := range oh {
		if got, err := s.GetBlob(ctx, h); err != nil || !bytes.Equal(got, old[i]) {
			t.Fatalf("old value %d: %v", i, err)
		}
	}
	for i, h := range hs {
		if got, err := s.GetBlob(ctx, h); err != nil || !bytes.Equal(got, files[i]) {
			t.Fatalf("member %d: %v", i, err)
		}
	}
}

// FuzzDecodePackPtr: decodePackPtr never panics, fails only with
// ErrCorrupt, and what it accepts round trips through encode.
func FuzzDecodePackPtr(f *testing.F) {
	f.Add(packPtr{pack: 1, off: 16, size: 300, crc: 7}.encode())
	f.Add(packPtr{pack: 3, off: 1 << 30, size: 40000, crc: 0xffffffff, member: true, memOff: 70000, memLen: 9}.encode())
	f.Add([]byte{packMemberTag, 1, 2, 3, 0, 0, 0, 0})
	f.Add([]byte{packPointerTag, 1, 2, 3, 0, 0, 0, 0, 5})
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := decodePackPtr(b)
		if err != nil {
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("error %v does not wrap ErrCorrupt", err)
			}
			return
		}
		if p.off < 0 || p.size < 0 || p.memOff < 0 || p.memLen < 0 {
			t.Fatalf("negative field in %+v", p)
		}
		q, err := decodePackPtr(p.encode())
		if err != nil || q != p {
			t.Fatalf("%+v encodes to what decodes as %+v, %v", p, q, err)
		}
	})
}

// TestBlocksDeferred: a deferred store's Writer stores blocks too; its
// members read back from the overlay log (read-only open) and once the
// log is folded into Badger.
func TestBlocksDeferred(t *testing.T) {
	if !canLockDir {
		t.Skip("no deferred opens here")
	}
	ctx := context.Background()
	dir := t.TempDir()
	openTestBadger(t, dir).Close()
	b, err := OpenBadger(ctx, dir, BadgerOptions{Deferred: true})
	if err != nil {
		t.Fatal(err)
	}
	s := newTestStore(t, b)
	files := blockFiles(40)
	hs := putFiles(t, s, files)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	check := func(s *Store, when string) {
		t.Helper()
		for i, h := range hs {
			if got, err := s.GetBlob(ctx, h); err != nil || !bytes.Equal(got, files[i]) {
				t.Fatalf("%s: file %d: %v", when, i, err)
			}
		}
	}
	ro, err := OpenBadger(ctx, dir, BadgerOptions{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	check(newTestStore(t, ro), "read-only, from the log")
	ro.Close()
	wb := openTestBadger(t, dir) // folds the log
	if _, members := countPointers(t, wb); members < 35 {
		t.Errorf("%d members in Badger after the fold, want the small files'", members)
	}
	check(newTestStore(t, wb), "folded")
}

// TestBlockCacheChecked: a cached block that is not the block read (its
// checksum collides) never gives wrong bytes: the member is checked
// against its address and the block decoded afresh.
func TestBlockCacheChecked(t *testing.T) {
	ctx := context.Background()
	s := newTestStore(t, openTestBadger(t, t.TempDir()))
	files := blockFiles(30)[:30]
	hs := putFiles(t, s, files)
	stored, err := s.Backend().Get(ctx, BlobKey(hs[3]))
	if err != nil {
		t.Fatal(err)
	}
	if stored[0] != codecBlock {
		t.Fatalf("file 3 stored with codec %d, want a block member", stored[0])
	}
	// The block's stored form follows the codec byte and the span.
	rest := stored[1:]
	for range 2 {
		_, n := binary.Uvarint(rest)
		rest = rest[n:]
	}
	s.blocks.put(blockKey(rest), bytes.Repeat([]byte{'z'}, 200<<10), false)
	for i, h := range hs {
		if got, err := s.GetBlob(ctx, h); err != nil || !bytes.Equal(got, files[i]) {
			t.Fatalf("file %d with a forged cache entry: %d bytes, %v", i, len(got), err)
		}
	}
}

// TestRawBlockDamageLocal: in a block stored raw (incompressible
// files), a flipped byte costs the member holding it only: the others
// still read, each checked against its address.
func TestRawBlockDamageLocal(t *testing.T) {
	ctx := context.Background()
	var files [][]byte
	for i := range 20 {
		files = append(files, randBytes(uint64(100+i), 3000))
	}
	s, hs := damagedPack(t, files, func(data []byte) {
		i := bytes.Index(data, files[7])
		if i < 0 {
			t.Fatal("file 7 is not stored raw in the pack")
		}
		data[i+1500] ^= 1
	})
	for i, h := range hs {
		got, err := s.GetBlob(ctx, h)
		if i == 7 {
			if !errors.Is(err, ErrCorrupt) {
				t.Errorf("the damaged member: %v, want ErrCorrupt", err)
			}
			continue
		}
		if err != nil || !bytes.Equal(got, files[i]) {
			t.Errorf("member %d beside the damage: %v", i, err)
		}
	}
}
