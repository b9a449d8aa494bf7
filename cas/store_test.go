package cas

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"
	"testing"
	"testing/iotest"

	"github.com/turnback/turnback/internal/testtier"
)

func TestBlobRoundTrip(t *testing.T) {
	testtier.NotUnderRace(t)
	t.Parallel()
	ctx := context.Background()
	cases := []struct {
		name  string
		data  []byte
		codec byte // expected codec byte of the stored record
	}{
		{"1 byte", []byte{'x'}, codecRaw},
		{"63 bytes text", textBytes(1, 63), codecRaw}, // too short to try zstd
		{"compressible 100KiB", textBytes(2, 100<<10), codecZstd},
		{"random 64B", randBytes(3, 64), codecRaw},
		{"random 100KiB", randBytes(4, 100<<10), codecRaw},
		{"random SmallFileMax", randBytes(5, SmallFileMax), codecRaw},
		{"compressible SmallFileMax", textBytes(6, SmallFileMax), codecZstd},
		// Larger than the decoder's memory limit: stored raw, still readable.
		{"compressible 5MiB", textBytes(7, 5<<20), codecRaw},
	}
	forEachBackend(t, func(t *testing.T, s *Store) {
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				w := s.NewWriter()
				h, err := w.PutBlob(ctx, c.data)
				if err != nil {
					t.Fatalf("PutBlob: %v", err)
				}
				if h != Sum(c.data) {
					t.Fatalf("PutBlob hash = %s, want Sum = %s", h, Sum(c.data))
				}
				if err := w.Flush(); err != nil {
					t.Fatalf("Flush: %v", err)
				}
				st := w.Stats()
				if st.NewBlobs != 1 || st.ReusedBlobs != 0 {
					t.Errorf("stats = %+v, want one new blob", st)
				}
				got, err := s.GetBlob(ctx, h)
				if err != nil {
					t.Fatalf("GetBlob: %v", err)
				}
				if !bytes.Equal(got, c.data) {
					t.Fatalf("GetBlob returned different bytes")
				}
				rec, err := s.Backend().Get(ctx, BlobKey(h))
				if err != nil {
					t.Fatalf("Backend.Get: %v", err)
				}
				if rec[0] != c.codec {
					t.Errorf("codec byte = %d, want %d", rec[0], c.codec)
				}
				if int64(len(rec)) != st.NewBytes {
					t.Errorf("NewBytes = %d, stored record is %d bytes", st.NewBytes, len(rec))
				}
				if c.codec == codecZstd && len(rec)-1 >= len(c.data)-len(c.data)/32 {
					t.Errorf("zstd record of %d bytes for %d bytes of content", len(rec), len(c.data))
				}
				if ok, err := s.HasContent(ctx, h); !ok || err != nil {
					t.Errorf("HasContent = %v, %v", ok, err)
				}
				if err := s.Verify(ctx, h, nil); err != nil {
					t.Errorf("Verify: %v", err)
				}
			})
		}

		t.Run("empty", func(t *testing.T) {
			w := s.NewWriter()
			for _, data := range [][]byte{nil, {}} {
				h, err := w.PutBlob(ctx, data)
				if err != nil || h != EmptyHash {
					t.Fatalf("PutBlob(empty) = %s, %v; want EmptyHash", h, err)
				}
			}
			if err := w.Flush(); err != nil {
				t.Fatal(err)
			}
			if st := w.Stats(); st != (WriteStats{}) {
				t.Errorf("empty content counted: %+v", st)
			}
			if ok, _ := s.Backend().Has(ctx, BlobKey(EmptyHash)); ok {
				t.Error("the empty content was stored")
			}
			got, err := s.GetBlob(ctx, EmptyHash)
			if err != nil || len(got) != 0 {
				t.Errorf("GetBlob(EmptyHash) = %q, %v", got, err)
			}
			if ok, err := s.HasContent(ctx, EmptyHash); !ok || err != nil {
				t.Errorf("HasContent(EmptyHash) = %v, %v", ok, err)
			}
			readAllOK(t, s, EmptyHash, nil)
			if err := s.Verify(ctx, EmptyHash, nil); err != nil {
				t.Errorf("Verify(EmptyHash): %v", err)
			}
		})
	})
}

func TestDedup(t *testing.T) {
	ctx := context.Background()
	forEachBackend(t, func(t *testing.T, s *Store) {
		a, b := textBytes(10, 5000), randBytes(11, 5000)
		w := s.NewWriter()
		for _, d := range [][]byte{a, b} {
			if _, err := w.PutBlob(ctx, d); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		first := w.Stats()
		if first.NewBlobs != 2 || first.ReusedBlobs != 0 {
			t.Fatalf("first put: %+v", first)
		}

		w = s.NewWriter()
		defer w.Cancel()
		for _, d := range [][]byte{a, b, a} {
			if _, err := w.PutBlob(ctx, d); err != nil {
				t.Fatal(err)
			}
		}
		if st := w.Stats(); st != (WriteStats{ReusedBlobs: 3}) {
			t.Errorf("second put of the same data: %+v, want 3 reused and nothing new", st)
		}

		// A chunked file, put again, writes nothing: not its chunks, not
		// its chunk list.
		big := randBytes(12, 3<<20)
		h1, st1 := putFile(t, s, big)
		h2, st2 := putFile(t, s, big)
		if h1 != h2 {
			t.Fatalf("same content, different hashes %s %s", h1, h2)
		}
		if st1.NewBlobs < 2 {
			t.Errorf("3 MiB file stored as %d blobs", st1.NewBlobs)
		}
		if st2.NewBlobs != 0 || st2.NewBytes != 0 || st2.ReusedBlobs != st1.NewBlobs {
			t.Errorf("re-put of a chunked file: %+v (first: %+v)", st2, st1)
		}
	})
}

func TestPutFileSizes(t *testing.T) {
	testtier.NotUnderRace(t)
	t.Parallel()
	ctx := context.Background()
	sizes := []int{0, 1, 4096, SmallFileMax - 1, SmallFileMax, SmallFileMax + 1, MaxChunk + MinChunk, 3<<20 + 12345}
	forEachBackend(t, func(t *testing.T, s *Store) {
		for i, n := range sizes {
			t.Run(fmt.Sprint(n), func(t *testing.T) {
				data := randBytes(uint64(100+i), n)
				h, st := putFile(t, s, data)
				if h != Sum(data) {
					t.Fatalf("PutFile hash %s, want Sum %s", h, Sum(data))
				}
				refs, chunked, err := s.Chunks(ctx, h)
				if err != nil {
					t.Fatal(err)
				}
				if chunked != (n > SmallFileMax) {
					t.Fatalf("%d bytes: chunked = %v", n, chunked)
				}
				if chunked {
					var sum int64
					for _, r := range refs {
						sum += r.Size
					}
					if sum != int64(n) || int64(len(refs)) != st.NewBlobs {
						t.Fatalf("chunk list: %d chunks, %d bytes; stats %+v", len(refs), sum, st)
					}
				}
				readAllOK(t, s, h, data)
				if ok, err := s.HasContent(ctx, h); !ok || err != nil {
					t.Errorf("HasContent = %v, %v", ok, err)
				}
				seen := map[Hash]bool{}
				if err := s.Verify(ctx, h, seen); err != nil {
					t.Fatalf("Verify: %v", err)
				}
				if n > 0 && !seen[h] {
					t.Error("Verify did not record the content in seen")
				}
			})
		}

		t.Run("compressible 1MiB", func(t *testing.T) {
			data := textBytes(120, 1<<20)
			h, st := putFile(t, s, data)
			if st.NewBytes > int64(len(data))/2 {
				t.Errorf("compressible file stored in %d bytes", st.NewBytes)
			}
			readAllOK(t, s, h, data)
		})

		t.Run("same address as PutBlob", func(t *testing.T) {
			// The address of content does not depend on how it is stored.
			data := randBytes(121, MaxChunk+1)
			w := s.NewWriter()
			hb, err := w.PutBlob(ctx, data)
			if err != nil {
				t.Fatal(err)
			}
			hf, _, err := w.PutFile(ctx, bytes.NewReader(data), -1)
			if err != nil {
				t.Fatal(err)
			}
			if err := w.Flush(); err != nil {
				t.Fatal(err)
			}
			if hb != hf {
				t.Fatalf("PutBlob %s, PutFile %s", hb, hf)
			}
			readAllOK(t, s, hf, data)
		})
	})
}

// TestPutFileSizeHint: the hint only sizes a buffer; a wrong one (the
// file changed after stat) still stores exactly what was read.
func TestPutFileSizeHint(t *testing.T) {
	testtier.NotUnderRace(t)
	t.Parallel()
	ctx := context.Background()
	s := newTestStore(t, NewMemory())
	for _, n := range []int{0, 10, SmallFileMax, SmallFileMax + 1, 2 << 20} {
		data := randBytes(uint64(200+n), n)
		for _, hint := range []int64{-1, 0, int64(n) - 1, int64(n), int64(n) + 1, 1 << 40} {
			if hint < -1 {
				continue
			}
			w := s.NewWriter()
			h, size, err := w.PutFile(ctx, bytesReader(data), hint)
			if err != nil {
				t.Fatalf("size %d hint %d: %v", n, hint, err)
			}
			if h != Sum(data) || size != int64(n) {
				t.Fatalf("size %d hint %d: got %s/%d, want %s/%d", n, hint, h, size, Sum(data), n)
			}
			if err := w.Flush(); err != nil {
				t.Fatal(err)
			}
			if _, chunked, _ := s.Chunks(ctx, h); chunked != (n > SmallFileMax) {
				t.Fatalf("size %d hint %d: chunked = %v", n, hint, chunked)
			}
			readAllOK(t, s, h, data)
		}
	}
}

// TestPutFileEdit: a large file with 1 MiB changed in the middle stores
// only the chunks around the change.
func TestPutFileEdit(t *testing.T) {
	testtier.NotUnderRace(t)
	t.Parallel()
	const size, editAt, editLen = 8 << 20, 3<<20 + 54321, 1 << 20
	orig := randBytes(300, size)
	edited := slices.Clone(orig)
	copy(edited[editAt:], randBytes(301, editLen))
	forEachBackend(t, func(t *testing.T, s *Store) {
		h1, st1 := putFile(t, s, orig)
		h2, st2 := putFile(t, s, edited)
		if h1 == h2 {
			t.Fatal("edited file has the original's hash")
		}
		t.Logf("original: %+v; edited: %+v", st1, st2)
		if st2.NewBytes >= 3<<20 {
			t.Errorf("edit of 1 MiB wrote %d new bytes, want < 3 MiB", st2.NewBytes)
		}
		if st2.ReusedBlobs < st1.NewBlobs-8 {
			t.Errorf("edited file reused %d of %d chunks", st2.ReusedBlobs, st1.NewBlobs)
		}
		for h, want := range map[Hash][]byte{h1: orig, h2: edited} {
			r, err := s.Open(context.Background(), h)
			if err != nil {
				t.Fatal(err)
			}
			if got, err := io.ReadAll(r); err != nil || !bytes.Equal(got, want) {
				t.Fatalf("read back %d bytes, %v", len(got), err)
			}
		}
	})
}

func TestPutFileErrors(t *testing.T) {
	s := newTestStore(t, NewMemory())
	boom := errors.New("disk on fire")

	for _, n := range []int{100, SmallFileMax + 1, 3 << 20} {
		w := s.NewWriter()
		r := io.MultiReader(bytes.NewReader(randBytes(400, n)), iotest.ErrReader(boom))
		if _, _, err := w.PutFile(context.Background(), r, -1); !errors.Is(err, boom) {
			t.Errorf("reader failing after %d bytes: PutFile = %v, want %v", n, err, boom)
		}
		w.Cancel()
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	w := s.NewWriter()
	defer w.Cancel()
	for _, n := range []int{100, 3 << 20} {
		if _, _, err := w.PutFile(ctx, bytes.NewReader(randBytes(401, n)), int64(n)); !errors.Is(err, context.Canceled) {
			t.Errorf("%d bytes with a cancelled context: PutFile = %v", n, err)
		}
	}
	if _, err := w.PutBlob(ctx, []byte("x")); !errors.Is(err, context.Canceled) {
		t.Errorf("PutBlob with a cancelled context: %v", err)
	}
}

// TestConcurrentWriter: one Writer fed from many goroutines, as the
// capture does.
func TestConcurrentWriter(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	forEachBackend(t, func(t *testing.T, s *Store) {
		w := s.NewWriter()
		defer w.Cancel()
		var files [][]byte
		for i := range 12 {
			n := []int{0, 100, 5000, SmallFileMax + 10, 1 << 20}[i%5]
			files = append(files, textBytes(uint64(500+i), n))
		}
		hashes := make([]Hash, len(files))
		var wg sync.WaitGroup
		for i, f := range files {
			wg.Go(func() {
				h, _, err := w.PutFile(ctx, bytes.NewReader(f), int64(len(f)))
				if err != nil {
					t.Error(err)
				}
				hashes[i] = h
			})
		}
		wg.Wait()
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		for i, f := range files {
			readAllOK(t, s, hashes[i], f)
		}
	})
}

func TestMissing(t *testing.T) {
	ctx := context.Background()
	forEachBackend(t, func(t *testing.T, s *Store) {
		h := Sum([]byte("never stored"))
		if _, err := s.GetBlob(ctx, h); !errors.Is(err, ErrNotFound) {
			t.Errorf("GetBlob of an unknown hash: %v", err)
		}
		if _, err := s.Open(ctx, h); !errors.Is(err, ErrNotFound) {
			t.Errorf("Open of an unknown hash: %v", err)
		}
		if err := s.Verify(ctx, h, nil); !errors.Is(err, ErrNotFound) {
			t.Errorf("Verify of an unknown hash: %v", err)
		}
		if ok, err := s.HasContent(ctx, h); ok || err != nil {
			t.Errorf("HasContent of an unknown hash = %v, %v", ok, err)
		}
		if _, chunked, err := s.Chunks(ctx, h); chunked || err != nil {
			t.Errorf("Chunks of an unknown hash = %v, %v", chunked, err)
		}
	})
}

// TestCorruptBlob: a damaged stored blob is an ErrCorrupt error on every
// read path, never different bytes.
func TestCorruptBlob(t *testing.T) {
	ctx := context.Background()
	forEachBackend(t, func(t *testing.T, s *Store) {
		for _, c := range []struct {
			name string
			data []byte
		}{
			{"raw", randBytes(600, 10000)},
			{"zstd", textBytes(601, 10000)},
		} {
			w := s.NewWriter()
			h, err := w.PutBlob(ctx, c.data)
			if err != nil {
				t.Fatal(err)
			}
			if err := w.Flush(); err != nil {
				t.Fatal(err)
			}
			good, err := s.Backend().Get(ctx, BlobKey(h))
			if err != nil {
				t.Fatal(err)
			}
			damage := map[string][]byte{
				"first payload byte": flip(good, 1),
				"middle byte":        flip(good, len(good)/2),
				"last byte":          flip(good, len(good)-1),
				"truncated":          good[:len(good)-1],
				"extended":           append(slices.Clone(good), 0),
				"empty record":       {},
				"codec only":         good[:1],
				"unknown codec":      append([]byte{7}, good[1:]...),
			}
			if c.name == "raw" {
				// The same payload read as zstd, and a zstd record read as raw.
				damage["wrong codec"] = append([]byte{codecZstd}, good[1:]...)
			} else {
				damage["wrong codec"] = append([]byte{codecRaw}, good[1:]...)
			}
			for what, bad := range damage {
				t.Run(c.name+"/"+what, func(t *testing.T) {
					if err := s.Backend().Set(ctx, Entry{Key: BlobKey(h), Value: bad}); err != nil {
						t.Fatal(err)
					}
					if got, err := s.GetBlob(ctx, h); !errors.Is(err, ErrCorrupt) {
						t.Errorf("GetBlob = %d bytes, %v; want ErrCorrupt", len(got), err)
					}
					if _, err := s.Open(ctx, h); !errors.Is(err, ErrCorrupt) {
						t.Errorf("Open = %v; want ErrCorrupt", err)
					}
					if err := s.Verify(ctx, h, map[Hash]bool{}); !errors.Is(err, ErrCorrupt) {
						t.Errorf("Verify = %v; want ErrCorrupt", err)
					}
				})
			}
			// Repaired, it reads again.
			if err := s.Backend().Set(ctx, Entry{Key: BlobKey(h), Value: good}); err != nil {
				t.Fatal(err)
			}
			readAllOK(t, s, h, c.data)
		}
	})
}

// TestCorruptChunkedFile: damage anywhere in a chunked file makes reading
// it fail with ErrCorrupt (or ErrNotFound for a missing chunk); bytes
// returned before the error are always a prefix of the true content.
func TestCorruptChunkedFile(t *testing.T) {
	testtier.NotUnderRace(t)
	t.Parallel()
	ctx := context.Background()
	data := randBytes(700, 2<<20)
	forEachBackend(t, func(t *testing.T, s *Store) {
		h, _ := putFile(t, s, data)
		refs, chunked, err := s.Chunks(ctx, h)
		if err != nil || !chunked || len(refs) < 3 {
			t.Fatalf("Chunks = %d refs, %v, %v", len(refs), chunked, err)
		}
		b := s.Backend()
		goodIndex, err := b.Get(ctx, IndexKey(h))
		if err != nil {
			t.Fatal(err)
		}
		mid := refs[1].Hash
		goodChunk, err := b.Get(ctx, BlobKey(mid))
		if err != nil {
			t.Fatal(err)
		}
		// index rebuilds a chunk list record from refs.
		index := func(refs []ChunkRef) []byte {
			rec := []byte{indexVersion}
			for _, r := range refs {
				rec = append(rec, r.Hash[:]...)
				rec = binary.AppendUvarint(rec, uint64(r.Size))
			}
			return rec
		}
		if !bytes.Equal(index(refs), goodIndex) {
			t.Fatal("test's index encoding differs from the store's")
		}
		swapped := slices.Clone(refs)
		swapped[0], swapped[1] = swapped[1], swapped[0]
		resized := slices.Clone(refs)
		resized[1].Size--
		otherChunk := randBytes(701, 200<<10)
		other := s.NewWriter()
		oh, err := other.PutBlob(ctx, otherChunk)
		if err != nil || other.Flush() != nil {
			t.Fatal(err)
		}
		replaced := slices.Clone(refs)
		replaced[2] = ChunkRef{Hash: oh, Size: int64(len(otherChunk))}

		// A chunk list that names other valid chunks can only be caught
		// once the whole content has been hashed, so bytes already
		// returned may be wrong (anyPrefix): the error at the end is what
		// callers must wait for. Damaged or missing chunks are caught
		// before their bytes are returned.
		cases := []struct {
			name      string
			entries   []Entry // written before the check
			del       []byte  // deleted before the check
			want      error
			anyPrefix bool
		}{
			{name: "chunk flipped", entries: []Entry{{BlobKey(mid), flip(goodChunk, len(goodChunk)/2)}}, want: ErrCorrupt},
			{name: "chunk bad codec", entries: []Entry{{BlobKey(mid), append([]byte{9}, goodChunk[1:]...)}}, want: ErrCorrupt},
			{name: "chunk missing", del: BlobKey(mid), want: ErrNotFound},
			{name: "chunks swapped", entries: []Entry{{IndexKey(h), index(swapped)}}, want: ErrCorrupt, anyPrefix: true},
			{name: "chunk size wrong", entries: []Entry{{IndexKey(h), index(resized)}}, want: ErrCorrupt},
			{name: "other valid chunk", entries: []Entry{{IndexKey(h), index(replaced)}}, want: ErrCorrupt, anyPrefix: true},
			{name: "last chunk dropped", entries: []Entry{{IndexKey(h), index(refs[:len(refs)-1])}}, want: ErrCorrupt},
			{name: "no chunks", entries: []Entry{{IndexKey(h), []byte{indexVersion}}}, want: ErrCorrupt},
			{name: "index bad version", entries: []Entry{{IndexKey(h), append([]byte{99}, goodIndex[1:]...)}}, want: ErrCorrupt},
			{name: "index truncated", entries: []Entry{{IndexKey(h), goodIndex[:len(goodIndex)-2]}}, want: ErrCorrupt},
			{name: "index empty", entries: []Entry{{IndexKey(h), nil}}, want: ErrCorrupt},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				if c.entries != nil {
					if err := b.Set(ctx, c.entries...); err != nil {
						t.Fatal(err)
					}
				}
				if c.del != nil {
					if err := b.Delete(ctx, c.del); err != nil {
						t.Fatal(err)
					}
				}
				t.Cleanup(func() {
					err := b.Set(ctx, Entry{IndexKey(h), goodIndex}, Entry{BlobKey(mid), goodChunk})
					if err != nil {
						t.Fatal(err)
					}
				})

				if err := s.Verify(ctx, h, nil); !errors.Is(err, c.want) {
					t.Errorf("Verify = %v, want %v", err, c.want)
				}
				r, err := s.Open(ctx, h)
				if err == nil {
					var got []byte
					got, err = io.ReadAll(r)
					if !c.anyPrefix && !bytes.HasPrefix(data, got) {
						t.Errorf("read %d bytes that are not the file's content", len(got))
					}
					if err == nil {
						t.Fatalf("read %d bytes and a clean EOF from a damaged file", len(got))
					}
					// The error sticks.
					if _, err2 := r.Read(make([]byte, 10)); err2 == nil || err2 == io.EOF {
						t.Errorf("Read after the error = %v", err2)
					}
				}
				if !errors.Is(err, c.want) {
					t.Errorf("reading = %v, want %v", err, c.want)
				}
			})
		}
		// Repaired, it reads again.
		readAllOK(t, s, h, data)
	})
}

// readAllOK checks that content h reads back as want through Open, both
// with io.ReadAll and iotest.TestReader's read patterns.
func readAllOK(t *testing.T, s *Store, h Hash, want []byte) {
	t.Helper()
	ctx := context.Background()
	r, err := s.Open(ctx, h)
	if err != nil {
		t.Fatalf("Open(%s): %v", h.Short(), err)
	}
	got, err := io.ReadAll(r)
	if err != nil {
		t.Fatalf("reading %s: %v", h.Short(), err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s read back %d bytes, differing from the %d stored", h.Short(), len(got), len(want))
	}
	r, err = s.Open(ctx, h)
	if err != nil {
		t.Fatal(err)
	}
	if len(want) <= 64<<10 {
		// Reads of 1 to 3 bytes, plus Seek and ReadAt where offered.
		err = iotest.TestReader(r, want)
	} else {
		err = readVarying(r, want)
	}
	if err != nil {
		t.Fatalf("%s: %v", h.Short(), err)
	}
}

// readVarying reads r with buffers of changing sizes, so reads end inside,
// at and across chunk boundaries, and checks the content and the EOF.
func readVarying(r io.Reader, want []byte) error {
	if n, err := r.Read(nil); n != 0 || err != nil {
		return fmt.Errorf("Read(nil) = %d, %v", n, err)
	}
	sizes := []int{1, 4093, 7, MinChunk - 3, 65537, MaxChunk + 5}
	var got []byte
	for i := 0; ; i++ {
		buf := make([]byte, sizes[i%len(sizes)])
		n, err := r.Read(buf)
		got = append(got, buf[:n]...)
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		if n == 0 {
			return fmt.Errorf("Read returned 0, nil at offset %d", len(got))
		}
	}
	if !bytes.Equal(got, want) {
		return fmt.Errorf("reading in varying sizes: %d bytes differing from the %d stored", len(got), len(want))
	}
	if n, err := r.Read(make([]byte, 10)); n != 0 || err != io.EOF {
		return fmt.Errorf("Read at EOF = %d, %v", n, err)
	}
	return nil
}

// flip returns a copy of b with the bits of b[i] inverted.
func flip(b []byte, i int) []byte {
	c := slices.Clone(b)
	c[i] ^= 0xff
	return c
}
