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
	for _, size := range []int{1 << 10, 64 << 10, 4 << 20} {
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

// BenchmarkBadgerBatch: bulk writes through a Badger batch, flushed every
// 256 values (each Flush syncs the pack file), for a value kept in the
// LSM tree (128 B) and values that go to pack files (8 KiB, a small
// file's blob; 256 KiB, an average chunk).
func BenchmarkBadgerBatch(b *testing.B) {
	for _, size := range []int{128, 8 << 10, 256 << 10} {
		b.Run(fmt.Sprintf("%dB", size), func(b *testing.B) {
			db := openTestBadger(b, b.TempDir())
			defer db.Close()
			val := randBytes(44, size)
			b.SetBytes(int64(size))
			b.ReportAllocs()
			batch := db.NewBatch()
			var i uint64
			for b.Loop() {
				key := binary.BigEndian.AppendUint64([]byte("b/"), i)
				if err := batch.Put(key, val); err != nil {
					b.Fatal(err)
				}
				i++
				if i%256 == 0 {
					if err := batch.Flush(); err != nil {
						b.Fatal(err)
					}
					batch = db.NewBatch()
				}
			}
			if err := batch.Flush(); err != nil {
				b.Fatal(err)
			}
		})
	}
}

// BenchmarkBadgerGet: reads of a value kept in the LSM tree (128 B) and
// of values in pack files.
func BenchmarkBadgerGet(b *testing.B) {
	ctx := context.Background()
	for _, size := range []int{128, 8 << 10, 256 << 10} {
		b.Run(fmt.Sprintf("%dB", size), func(b *testing.B) {
			db := openTestBadger(b, b.TempDir())
			defer db.Close()
			const n = 64
			batch := db.NewBatch()
			for i := range n {
				if err := batch.Put(binary.BigEndian.AppendUint64([]byte("b/"), uint64(i)), randBytes(uint64(i), size)); err != nil {
					b.Fatal(err)
				}
			}
			if err := batch.Flush(); err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(size))
			b.ReportAllocs()
			var i uint64
			for b.Loop() {
				if _, err := db.Get(ctx, binary.BigEndian.AppendUint64([]byte("b/"), i%n)); err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
	}
}
