package cas

import (
	"bytes"
	"context"
	"testing"
)

// BenchmarkGetBlobMember: a small file read back from a block, against
// the same file stored as a value of its own (the read path of undo).
func BenchmarkGetBlobMember(b *testing.B) {
	ctx := context.Background()
	for _, tc := range []struct {
		name   string
		block  bool
		stride int
	}{{"alone", false, 37}, {"member", true, 37}, {"member-neighbours", true, 1}} {
		b.Run(tc.name, func(b *testing.B) {
			s := newTestStore(b, openTestBadger(b, b.TempDir()))
			w := s.NewWriter()
			var hs []Hash
			for i := range 200 {
				f := textBytes(uint64(i), 3000+i*50)
				var h Hash
				var err error
				if tc.block {
					h, _, err = w.PutFile(ctx, bytes.NewReader(f), int64(len(f)))
				} else {
					h, err = w.PutBlob(ctx, f)
				}
				if err != nil {
					b.Fatal(err)
				}
				hs = append(hs, h)
			}
			if err := w.Flush(); err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for i := 0; b.Loop(); i++ {
				// Stride 37 lands in another block each time; stride 1
				// reads the files in the order they were captured.
				if _, err := s.GetBlob(ctx, hs[(i*tc.stride)%len(hs)]); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
