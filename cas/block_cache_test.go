package cas

import (
	"bytes"
	"context"
	"errors"
	"fmt"
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
