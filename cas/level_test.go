package cas

import (
	"bytes"
	"context"
	"fmt"
	"testing"
)

// setBulkBlobs sets bulkBlobs for the test.
func setBulkBlobs(t testing.TB, n int64) {
	old := bulkBlobs
	bulkBlobs = n
	t.Cleanup(func() { bulkBlobs = old })
}

// TestWriterBulkLevel: a Writer stores its first bulkBlobs new blobs at
// zstd's default level and the ones after at the fastest level; a blob
// already present does not count. Each reads back.
func TestWriterBulkLevel(t *testing.T) {
	ctx := context.Background()
	setBulkBlobs(t, 3)
	s := newTestStore(t, NewMemory())
	present := textBytes(99, 100<<10)
	w0 := s.NewWriter()
	if _, err := w0.PutBlob(ctx, present); err != nil {
		t.Fatal(err)
	}
	if err := w0.Flush(); err != nil {
		t.Fatal(err)
	}
	w := s.NewWriter()
	steps := []struct {
		seed uint64
		fast bool
	}{{1, false}, {99, false}, {2, false}, {3, false}, {4, true}, {5, true}}
	hs := make([]Hash, len(steps))
	for i, st := range steps {
		h, err := w.PutBlob(ctx, textBytes(st.seed, 100<<10))
		if err != nil {
			t.Fatal(err)
		}
		hs[i] = h
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	for i, st := range steps {
		t.Run(fmt.Sprint(st.seed), func(t *testing.T) {
			data := textBytes(st.seed, 100<<10)
			def, fast := s.encodeToWith(nil, data, false), s.encodeToWith(nil, data, true)
			if bytes.Equal(def, fast) {
				t.Fatal("both levels give the same bytes: the test cannot tell them apart")
			}
			want, level := def, "default"
			if st.fast {
				want, level = fast, "fastest"
			}
			got, err := s.b.Get(ctx, BlobKey(hs[i]))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("stored %d bytes, want the %s level's %d", len(got), level, len(want))
			}
			back, err := s.GetBlob(ctx, hs[i])
			if err != nil || !bytes.Equal(back, data) {
				t.Fatalf("read back %d bytes, %v", len(back), err)
			}
		})
	}
}

// TestWriterBulkBlocks: blocks written after bulkBlobs new blobs are at
// the fastest level (more stored bytes for the same files), and their
// members read back.
func TestWriterBulkBlocks(t *testing.T) {
	ctx := context.Background()
	newBytes := map[int64]int64{}
	for _, bulk := range []int64{1 << 40, 0} {
		t.Run(fmt.Sprint(bulk), func(t *testing.T) {
			setBulkBlobs(t, bulk)
			s := newTestStore(t, openTestBadger(t, t.TempDir()))
			w := s.NewWriter()
			files := map[Hash][]byte{}
			for i := range 300 {
				f := textBytes(uint64(i), 2000+(i*7919)%20000)
				h, _, err := w.PutFile(WithBlockGroup(ctx, fmt.Sprintf("d%d/", i%7)), bytes.NewReader(f), int64(len(f)))
				if err != nil {
					t.Fatal(err)
				}
				files[h] = f
			}
			if err := w.Flush(); err != nil {
				t.Fatal(err)
			}
			newBytes[bulk] = w.Stats().NewBytes
			for h, f := range files {
				got, err := s.GetBlob(ctx, h)
				if err != nil || !bytes.Equal(got, f) {
					t.Fatalf("%s: read back %d bytes, %v", h.Short(), len(got), err)
				}
			}
		})
	}
	if def, fast := newBytes[1<<40], newBytes[0]; fast <= def {
		t.Errorf("blocks at the fastest level take %d bytes, at the default %d: want more", fast, def)
	}
}
