package cas

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"testing"
)

// TestEncodersFor: a Writer uses the default level until it has given
// zstd its budget of content, then the fastest.
func TestEncodersFor(t *testing.T) {
	s := newTestStore(t, NewMemory())
	s.budget = 100
	w := s.NewWriter()
	defer w.Cancel()
	for i, tc := range []struct {
		n    int
		want *encoders
	}{{60, s.enc}, {40, s.enc}, {1, s.fast}, {1 << 20, s.fast}} {
		if got := w.encodersFor(tc.n); got != tc.want {
			t.Errorf("call %d (%d bytes): fast %v, want fast %v", i, tc.n, got == s.fast, tc.want == s.fast)
		}
	}
	if s2 := newTestStore(t, NewMemory()); s2.budget != levelBudget || s2.NewWriter().encodersFor(1<<20) != s2.enc {
		t.Errorf("a new store's budget is %d, want %d", s2.budget, levelBudget)
	}
}

// TestPastLevelBudgetReadsBack: content stored past a Writer's budget,
// in blocks and as large files, reads back byte for byte, and is
// compressed (at the fastest level) rather than stored raw.
func TestPastLevelBudgetReadsBack(t *testing.T) {
	forEachBackend(t, func(t *testing.T, s *Store) {
		s.budget = 64 << 10
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
