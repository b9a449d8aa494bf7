package cas

import (
	"bytes"
	"context"
	"fmt"
	"sync"
	"testing"
)

// TestEncodeTo: encodeTo gives encode's stored form, decodable to the
// content, whatever the buffer it is handed, and allocates nothing when
// the buffer has encodedMax room.
func TestEncodeTo(t *testing.T) {
	s := newTestStore(t, NewMemory())
	tests := []struct {
		name  string
		data  []byte
		codec byte
	}{
		{"tiny", []byte("short"), codecRaw},
		{"63 bytes of text", textBytes(1, 63), codecRaw},
		{"text 300 bytes", textBytes(2, 300), codecZstd},
		{"text 10 KiB", textBytes(3, 10<<10), codecZstd},
		{"random 10 KiB", randBytes(4, 10<<10), codecRaw},
		{"random 300 KiB", randBytes(5, 300<<10), codecRaw},
		{"text a chunk", textBytes(6, MaxChunk), codecZstd},
		{"random a chunk", randBytes(7, MaxChunk), codecRaw},
		{"text over the zstd limit", textBytes(8, maxZstdBlob+1), codecRaw},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := s.encode(tt.data)
			if want[0] != tt.codec {
				t.Fatalf("codec %d, want %d", want[0], tt.codec)
			}
			for _, buf := range [][]byte{nil, make([]byte, 3, 10), bytes.Repeat([]byte{0xaa}, encodedMax(len(tt.data)))} {
				got := s.encodeTo(buf, tt.data)
				if !bytes.Equal(got, want) {
					t.Fatalf("encodeTo with a buffer of cap %d differs from encode", cap(buf))
				}
			}
			back, err := s.decode(Sum(tt.data), want)
			if err != nil || !bytes.Equal(back, tt.data) {
				t.Fatalf("decode: %v", err)
			}
			buf := make([]byte, 0, encodedMax(len(tt.data)))
			if n := testing.AllocsPerRun(5, func() { s.encodeTo(buf, tt.data) }); n != 0 {
				t.Errorf("encodeTo with encodedMax room: %v allocations, want 0", n)
			}
		})
	}
}

// TestWriterRecyclesBuffers: the Writer builds stored forms in recycled
// buffers; values a batch keeps until Flush (small ones, which Badger
// keeps in its write batch) must not be overwritten by later blobs.
func TestWriterRecyclesBuffers(t *testing.T) {
	forEachBackend(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		w := s.NewWriter()
		defer w.Cancel()
		// Sizes on both sides of packThreshold, compressible and not,
		// from several goroutines.
		var contents [][]byte
		for i := range 400 {
			n := 64 + (i*37)%600
			if i%2 == 0 {
				contents = append(contents, randBytes(uint64(i), n))
			} else {
				contents = append(contents, []byte(fmt.Sprintf("%d:%s", i, textBytes(uint64(i), n))))
			}
		}
		hashes := make([]Hash, len(contents))
		var wg sync.WaitGroup
		errs := make(chan error, 4)
		for g := range 4 {
			wg.Go(func() {
				for i := g; i < len(contents); i += 4 {
					h, err := w.PutBlob(ctx, contents[i])
					if err != nil {
						errs <- err
						return
					}
					hashes[i] = h
				}
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		for i, h := range hashes {
			got, err := s.GetBlob(ctx, h)
			if err != nil || !bytes.Equal(got, contents[i]) {
				t.Fatalf("blob %d (%d bytes): %v", i, len(contents[i]), err)
			}
		}
	})
}
