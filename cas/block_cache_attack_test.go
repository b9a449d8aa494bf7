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

// damagePackAt flips every byte of pack 1 of dir after its magic, in
// place: a store open on dir sees the damage on its next pack read.
func damagePackAt(t *testing.T, dir string) {
	t.Helper()
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
}

// TestVerifyReadsDamageBehindCache: Verify is what verifyUse relies on
// to find a store damaged since its content was captured, before a
// restore overwrites the only good copy. A block member read earlier
// by this process (its block cached) and damaged on disk since must
// fail Verify with ErrCorrupt, as it did before the block cache was
// keyed by pointer: the disk no longer holds it.
func TestVerifyReadsDamageBehindCache(t *testing.T) {
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
	var block []int
	for _, m := range membersByBlock(t, b, hs) {
		if len(m) >= 3 {
			block = m
			break
		}
	}
	if block == nil {
		t.Fatal("want a block of three members or more")
	}
	// A restore, a diff or an earlier verify read one member: its block
	// is cached now.
	if got, err := s.GetBlob(ctx, hs[block[0]]); err != nil || !bytes.Equal(got, files[block[0]]) {
		t.Fatalf("first read: %v", err)
	}
	damagePackAt(t, dir)
	for _, i := range block {
		if err := s.Verify(ctx, hs[i], nil); !errors.Is(err, ErrCorrupt) {
			t.Errorf("member %d, damaged on disk, its block cached: Verify = %v, want ErrCorrupt", i, err)
		}
	}
}

// TestConcurrentReadPaths: every read path that goes through the block
// cache at once (GetBlob by pointer, Record and Backend.Get by the
// stored block, Open and Verify), over more blocks than the cache
// holds. Each path caches blocks its own way (a pooled decoded buffer,
// a stored form's own array); what each returned must stay intact and
// every member must match its address (run under -race).
func TestConcurrentReadPaths(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	var files [][]byte
	for i := range 240 {
		switch i % 3 {
		case 0:
			files = append(files, randBytes(uint64(3000+i), 2000+i*97%9000)) // raw blocks
		case 1:
			files = append(files, textBytes(uint64(4000+i), 3000+i*131%20000)) // zstd blocks
		default:
			files = append(files, textBytes(uint64(5000+i), 300+i)) // small
		}
	}
	w := newTestStore(t, openTestBadger(t, dir))
	hs := putFirst(t, w, files, func(i int) bool { return i%3 == 0 })
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	b := openTestBadger(t, dir)
	if n := len(membersByBlock(t, b, hs)); n < 2*len(blockCache{}.ents) {
		t.Fatalf("%d blocks, want more than twice what the cache holds", n)
	}
	s := newTestStore(t, b)
	type kept struct {
		i    int
		data []byte
	}
	const readers = 5
	got := make([][]kept, readers)
	var wg sync.WaitGroup
	for r := range readers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range len(files) {
				i := (k*(2*r+3) + r*11) % len(files)
				var data []byte
				var err error
				switch (k + r) % 4 {
				case 0:
					data, err = s.GetBlob(ctx, hs[i])
				case 1:
					var rec []byte
					if rec, err = s.Record(ctx, BlobKey(hs[i])); err == nil {
						data, err = s.decode(hs[i], rec)
					}
				case 2:
					var rd io.Reader
					if rd, err = s.Open(ctx, hs[i]); err == nil {
						data, err = io.ReadAll(rd)
					}
				default:
					err = s.Verify(ctx, hs[i], nil)
					data = files[i]
				}
				if err != nil {
					t.Errorf("reader %d, file %d: %v", r, i, err)
					return
				}
				if !bytes.Equal(data, files[i]) {
					t.Errorf("reader %d, file %d: wrong bytes when read", r, i)
					return
				}
				got[r] = append(got[r], kept{i, data})
			}
		}()
	}
	wg.Wait()
	for r := range readers {
		for _, g := range got[r] {
			if !bytes.Equal(g.data, files[g.i]) {
				t.Fatalf("reader %d, file %d: changed after its read", r, g.i)
			}
		}
	}
	// The blocks still cached give each member its own bytes.
	for i, h := range hs {
		if got, err := s.GetBlob(ctx, h); err != nil || !bytes.Equal(got, files[i]) {
			t.Fatalf("file %d after the readers: %v", i, fmt.Sprint(err))
		}
	}
}

// TestScratchReadsWhileWriting: a read-only store keeps its writes in
// memory, a deferred store its uncommitted ones; reads of those values
// lend the layer's own bytes inside the store. Readers (GetBlob, Verify,
// Record) of blobs, block members among them, run while a writer adds
// more: what each read returned must stay intact, also after the
// caller changed its copy (run under -race).
func TestScratchReadsWhileWriting(t *testing.T) {
	ctx := context.Background()
	var files [][]byte
	for i := range 90 {
		switch i % 3 {
		case 0:
			files = append(files, randBytes(uint64(7000+i), 1000+i*53%6000))
		case 1:
			files = append(files, textBytes(uint64(8000+i), 2000+i*71%9000))
		default:
			files = append(files, randBytes(uint64(9000+i), 70<<10+i))
		}
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
		hs := putFiles(t, s, files[:60])
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			w := s.NewWriter()
			defer w.Cancel()
			for _, f := range files[60:] {
				if _, err := w.PutBlob(ctx, f); err != nil {
					t.Errorf("%s: write: %v", name, err)
					return
				}
			}
			if err := w.Flush(); err != nil {
				t.Errorf("%s: flush: %v", name, err)
			}
		}()
		for r := range 3 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for k := range 120 {
					i := (k*(r+2) + r) % len(hs)
					switch k % 3 {
					case 0:
						data, err := s.GetBlob(ctx, hs[i])
						if err != nil || !bytes.Equal(data, files[i]) {
							t.Errorf("%s: reader %d: file %d: %v", name, r, i, err)
							return
						}
						for j := range data {
							data[j] ^= 0xff
						}
					case 1:
						if err := s.Verify(ctx, hs[i], nil); err != nil {
							t.Errorf("%s: reader %d: Verify file %d: %v", name, r, i, err)
							return
						}
					default:
						rec, err := s.Record(ctx, BlobKey(hs[i]))
						if err == nil {
							var data []byte
							if data, err = s.decode(hs[i], rec); err == nil && !bytes.Equal(data, files[i]) {
								err = fmt.Errorf("wrong bytes")
							}
						}
						if err != nil {
							t.Errorf("%s: reader %d: Record file %d: %v", name, r, i, err)
							return
						}
					}
				}
			}()
		}
		wg.Wait()
		for i, h := range hs {
			if got, err := s.GetBlob(ctx, h); err != nil || !bytes.Equal(got, files[i]) {
				t.Fatalf("%s: file %d after the readers: %v", name, i, err)
			}
		}
	}
}
