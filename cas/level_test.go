package cas

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"testing"
)

// TestEncodersFor: a Writer uses the fastest level for its warmup of
// content, the default level until it has given zstd its budget, then
// the fastest again.
func TestEncodersFor(t *testing.T) {
	s := newTestStore(t, NewMemory())
	s.warmup, s.budget = 30, 100
	w := s.NewWriter()
	defer w.Cancel()
	for i, tc := range []struct {
		n    int
		want *encoders
	}{{20, s.fast}, {10, s.fast}, {30, s.enc}, {40, s.enc}, {1, s.fast}, {1 << 20, s.fast}} {
		if got := w.encodersFor(tc.n); got != tc.want {
			t.Errorf("call %d (%d bytes): fast %v, want fast %v", i, tc.n, got == s.fast, tc.want == s.fast)
		}
	}
	s2 := newTestStore(t, NewMemory())
	if s2.warmup != levelWarmup || s2.budget != levelBudget {
		t.Errorf("a new store's warmup and budget are %d and %d, want %d and %d", s2.warmup, s2.budget, levelWarmup, levelBudget)
	}
	w2 := s2.NewWriter()
	defer w2.Cancel()
	if w2.encodersFor(levelWarmup) != s2.fast || w2.encodersFor(1) != s2.enc {
		t.Error("a new store's Writer does not turn to the default level after its warmup")
	}
}

// TestPastLevelBudgetReadsBack: content stored past a Writer's budget,
// in blocks and as large files, reads back byte for byte, and is
// compressed (at the fastest level) rather than stored raw.
func TestPastLevelBudgetReadsBack(t *testing.T) {
	forEachBackend(t, func(t *testing.T, s *Store) {
		s.warmup, s.budget = 16<<10, 64<<10
		ctx := context.Background()
		w := s.NewWriter()
		defer w.Cancel()
		var files [][]byte
		var hashes []Hash
		for i := 0; i < 40; i++ {
			var b bytes.Buffer
			for b.Len() < (i%4+1)*20<<10 {
				fmt.Fprintf(&b, "file %d line %d: func f%d() { return x%d + %d }\n", i, b.Len(), i, b.Len()%97, i*b.Len())
			}
			h, _, err := w.PutFile(ctx, bytesReader(b.Bytes()), int64(b.Len()))
			if err != nil {
				t.Fatal(err)
			}
			files, hashes = append(files, b.Bytes()), append(hashes, h)
		}
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		var in int64
		for _, f := range files {
			in += int64(len(f))
		}
		if st := w.Stats(); st.NewBytes*3 > in {
			t.Errorf("stored %d bytes of %d: not compressed", st.NewBytes, in)
		}
		for i, h := range hashes {
			r, err := s.Open(ctx, h)
			if err != nil {
				t.Fatal(err)
			}
			got, err := io.ReadAll(r)
			if err != nil || !bytes.Equal(got, files[i]) {
				t.Fatalf("file %d reads back %d bytes (%v), want %d", i, len(got), err, len(files[i]))
			}
		}
	})
}
