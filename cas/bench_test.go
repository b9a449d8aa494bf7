package cas

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"testing"
)

var benchSizes = []int{4 << 10, 256 << 10}

// benchStore returns a store over a fresh backend of the given kind.
func benchStore(b *testing.B, kind int) *Store {
	b.Helper()
	return newTestStore(b, backendKinds[kind].open(b))
}

// benchData is source-like text (zstd shrinks it to about a third) so
// that both hashing and compression are measured.
func benchData(n int) []byte { return textBytes(42, n) }

func BenchmarkPutBlob(b *testing.B) {
	ctx := context.Background()
	for kind, k := range backendKinds {
		for _, size := range benchSizes {
			b.Run(fmt.Sprintf("%s/%dKiB", k.name, size>>10), func(b *testing.B) {
				s := benchStore(b, kind)
				data := benchData(size)
				w := s.NewWriter()
				b.SetBytes(int64(size))
				b.ReportAllocs()
				var i uint64
				for b.Loop() {
					// Distinct content each time, or it would dedup.
					binary.LittleEndian.PutUint64(data, i)
					i++
					if _, err := w.PutBlob(ctx, data); err != nil {
						b.Fatal(err)
					}
					if i%1024 == 0 {
						if err := w.Flush(); err != nil {
							b.Fatal(err)
						}
						w = s.NewWriter()
					}
				}
				if err := w.Flush(); err != nil {
					b.Fatal(err)
				}
			})
		}
	}
}

func BenchmarkGetBlob(b *testing.B) {
	ctx := context.Background()
	for kind, k := range backendKinds {
		for _, size := range benchSizes {
			b.Run(fmt.Sprintf("%s/%dKiB", k.name, size>>10), func(b *testing.B) {
				s := benchStore(b, kind)
				data := benchData(size)
				w := s.NewWriter()
				hashes := make([]Hash, 64)
				for i := range hashes {
					binary.LittleEndian.PutUint64(data, uint64(i))
					h, err := w.PutBlob(ctx, data)
					if err != nil {
						b.Fatal(err)
					}
					hashes[i] = h
				}
				if err := w.Flush(); err != nil {
					b.Fatal(err)
				}
				b.SetBytes(int64(size))
				b.ReportAllocs()
				var i int
				for b.Loop() {
					if _, err := s.GetBlob(ctx, hashes[i%len(hashes)]); err != nil {
						b.Fatal(err)
					}
					i++
				}
			})
		}
	}
}

// BenchmarkPutFile measures the whole path for a small file (most of a
// source tree) and a chunked one, on the memory backend.
func BenchmarkPutFile(b *testing.B) {
	ctx := context.Background()
	for _, size := range []int{1 << 10, 4 << 20} {
		b.Run(fmt.Sprintf("%dKiB", size>>10), func(b *testing.B) {
			s := benchStore(b, 0)
			data := benchData(size)
			b.SetBytes(int64(size))
			b.ReportAllocs()
			var i uint64
			w := s.NewWriter()
			for b.Loop() {
				// New content in every chunk, or the chunks would dedup.
				for off := 0; off < len(data); off += 64 << 10 {
					binary.LittleEndian.PutUint64(data[off:], i)
				}
				i++
				if _, _, err := w.PutFile(ctx, bytes.NewReader(data), int64(size)); err != nil {
					b.Fatal(err)
				}
			}
			if err := w.Flush(); err != nil {
				b.Fatal(err)
			}
		})
	}
}

func BenchmarkChunker(b *testing.B) {
	data := randBytes(43, 16<<20)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		c := NewChunker(bytes.NewReader(data))
		for {
			_, err := c.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
		}
	}
}
