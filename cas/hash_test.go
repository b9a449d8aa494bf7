package cas

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"
	"testing/iotest"

	"github.com/zeebo/blake3"
)

// TestSumReused: Sum reuses its hashers; each sum, of any size after
// any other, in parallel too, is blake3.Sum256's.
func TestSumReused(t *testing.T) {
	sizes := []int{0, 1, 100, 1024, 1025, 8191, 8192, 8193, 70000, 3}
	data := make([]byte, 70000)
	for i := range data {
		data[i] = byte(i * 7)
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for round := range 20 {
				for k := range sizes {
					n := sizes[(k+g+round)%len(sizes)]
					if got, want := Sum(data[:n]), Hash(blake3.Sum256(data[:n])); got != want {
						t.Errorf("Sum of %d bytes: %s, want %s", n, got.Short(), want.Short())
						return
					}
				}
			}
		})
	}
	wg.Wait()
}

func TestHash(t *testing.T) {
	// BLAKE3-256 test vectors: the address format is part of every store.
	vectors := map[string]string{
		"":    "af1349b9f5f9a1a6a0404dea36dcc9499bcb25c9adc112b7cc9a93cae41f3262",
		"abc": "6437b3ac38465133ffb63b75273a8db548c558465d79db03fd359c6cd5bd9d85",
	}
	for in, want := range vectors {
		h := Sum([]byte(in))
		if h.String() != want {
			t.Errorf("Sum(%q) = %s, want %s", in, h, want)
		}
		if h.Short() != want[:ShortLen] {
			t.Errorf("Short = %s", h.Short())
		}
		p, err := ParseHash(want)
		if err != nil || p != h {
			t.Errorf("ParseHash(%s) = %s, %v", want, p, err)
		}
		if p, err := ParseHash(strings.ToUpper(want)); err != nil || p != h {
			t.Errorf("ParseHash(upper case) = %s, %v", p, err)
		}
	}
	if EmptyHash.String() != vectors[""] {
		t.Errorf("EmptyHash = %s", EmptyHash)
	}
	if !(Hash{}).IsZero() || EmptyHash.IsZero() {
		t.Error("IsZero wrong")
	}
	for _, bad := range []string{"", "abc", vectors[""][:63], vectors[""] + "0", "g" + vectors[""][1:], " " + vectors[""][1:]} {
		if _, err := ParseHash(bad); err == nil {
			t.Errorf("ParseHash(%q) succeeded", bad)
		}
	}
}

func TestHashReader(t *testing.T) {
	ctx := context.Background()
	for _, n := range []int{0, 1, 256 << 10, 1<<20 + 3} {
		data := randBytes(uint64(1000+n), n)
		h, size, err := HashReader(ctx, bytesReader(data))
		if err != nil || h != Sum(data) || size != int64(n) {
			t.Errorf("%d bytes: HashReader = %s, %d, %v; want %s", n, h.Short(), size, err, Sum(data).Short())
		}
	}
	boom := errors.New("boom")
	if _, _, err := HashReader(ctx, io.MultiReader(bytes.NewReader(make([]byte, 1000)), iotest.ErrReader(boom))); !errors.Is(err, boom) {
		t.Errorf("failing reader: %v", err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, _, err := HashReader(cctx, bytes.NewReader(make([]byte, 10))); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled context: %v", err)
	}
}
