package cas

import (
	"bytes"
	"context"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// TestRecordStandsAlone: Record hands out a block member as a record of
// its own (codec raw or zstd, as stores before blocks wrote), holding
// only the member's content. A push copies records as Record returns
// them, and other stores read no block codec.
func TestRecordStandsAlone(t *testing.T) {
	ctx := context.Background()
	s := newTestStore(t, openTestBadger(t, t.TempDir()))
	files := blockFiles(60)
	hs := putFiles(t, s, files)
	dec, err := zstd.NewReader(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer dec.Close()
	members := 0
	for i, h := range hs {
		stored, err := s.Backend().Get(ctx, BlobKey(h))
		if err != nil {
			t.Fatal(err)
		}
		rec, err := s.Record(ctx, BlobKey(h))
		if err != nil {
			t.Fatalf("file %d: %v", i, err)
		}
		if stored[0] == codecBlock {
			members++
			if len(rec) > encodedMax(len(files[i])) {
				t.Errorf("file %d: record of %d bytes for %d bytes of content", i, len(rec), len(files[i]))
			}
		} else if !bytes.Equal(rec, stored) {
			t.Errorf("file %d: a record of its own changed", i)
		}
		var data []byte
		switch rec[0] {
		case codecRaw:
			data = rec[1:]
		case codecZstd:
			if data, err = dec.DecodeAll(rec[1:], nil); err != nil {
				t.Fatalf("file %d: %v", i, err)
			}
		default:
			t.Fatalf("file %d: record with codec %d", i, rec[0])
		}
		if !bytes.Equal(data, files[i]) {
			t.Fatalf("file %d: record holds %d bytes, want its %d", i, len(data), len(files[i]))
		}
	}
	if members == 0 {
		t.Fatal("no file went into a block")
	}
}
