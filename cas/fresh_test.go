package cas

import (
	"bytes"
	"context"
	"strings"
	"sync/atomic"
	"testing"
)

// hasCounter counts the Has calls a Writer makes.
type hasCounter struct {
	Backend
	has atomic.Int64
}

func (c *hasCounter) Has(ctx context.Context, key []byte) (bool, error) {
	c.has.Add(1)
	return c.Backend.Has(ctx, key)
}

// TestWriterFreshStore: into a store with no blob, a Writer writes new
// blobs without asking the backend, and asks as usual for content it
// has written before; into any other store it asks for every blob.
func TestWriterFreshStore(t *testing.T) {
	ctx := context.Background()
	a, b, c := textBytes(1, 5000), textBytes(2, 100), randBytes(3, 300)
	tests := []struct {
		name      string
		before    [][]byte // written and flushed by an earlier Writer
		put       [][]byte
		wantHas   int64
		wantNew   int64
		wantReuse int64
	}{
		{"fresh: new blobs", nil, [][]byte{a, b, c}, 0, 3, 0},
		{"fresh: the same content again", nil, [][]byte{a, b, a, a}, 2, -1, -1},
		{"not fresh: every blob looked up", [][]byte{c}, [][]byte{a, b, c}, 3, 2, 1},
		{"fresh past the bound of remembered blobs", nil, [][]byte{a, b, c, textBytes(4, 200)}, 2, 4, 0},
	}
	for _, tt := range tests {
		for _, k := range backendKinds {
			t.Run(tt.name+"/"+k.name, func(t *testing.T) {
				if strings.Contains(tt.name, "bound") {
					old := maxFreshSeen
					maxFreshSeen = 2
					defer func() { maxFreshSeen = old }()
				}
				hc := &hasCounter{Backend: k.open(t)}
				s := newTestStore(t, hc)
				for _, d := range tt.before {
					putFile(t, s, d)
				}
				hc.has.Store(0)
				w := s.NewWriter()
				defer w.Cancel()
				var hashes []Hash
				for _, d := range tt.put {
					h, err := w.PutBlob(ctx, d)
					if err != nil {
						t.Fatal(err)
					}
					hashes = append(hashes, h)
				}
				if err := w.Flush(); err != nil {
					t.Fatal(err)
				}
				if got := hc.has.Load(); got != tt.wantHas {
					t.Errorf("%d lookups, want %d", got, tt.wantHas)
				}
				st := w.Stats()
				if tt.wantNew >= 0 && (st.NewBlobs != tt.wantNew || st.ReusedBlobs != tt.wantReuse) {
					t.Errorf("stats %+v, want %d new, %d reused", st, tt.wantNew, tt.wantReuse)
				}
				for i, h := range hashes {
					got, err := s.GetBlob(ctx, h)
					if err != nil || !bytes.Equal(got, tt.put[i]) {
						t.Fatalf("blob %d: %v", i, err)
					}
				}
			})
		}
	}
}

// TestWriterFreshStoreCancelled: a cancelled context during the
// emptiness check fails the put rather than being taken for a fresh
// store.
func TestWriterFreshStoreCancelled(t *testing.T) {
	s := newTestStore(t, NewMemory())
	w := s.NewWriter()
	defer w.Cancel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := w.PutBlob(ctx, textBytes(1, 1000)); err == nil {
		t.Fatal("PutBlob with a cancelled context succeeded")
	}
	if w.fresh.fresh {
		t.Error("a store whose check was cancelled taken for fresh")
	}
}
