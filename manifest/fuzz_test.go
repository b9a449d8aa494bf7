package manifest

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"testing"
)

func FuzzDecode(f *testing.F) {
	for _, tr := range []*Tree{{}, sampleTree(), sampleTreeV2()} {
		b, err := tr.Encode()
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	r := rand.New(rand.NewPCG(5, 6))
	for range 20 {
		b, err := randomTree(r, r.IntN(6)).Encode()
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte("TBTR\x01\x80\x00"))
	f.Add([]byte("TBTR\x02\x01\x01p\x04\x00\x00\x00"))         // a fifo
	f.Add([]byte("TBTR\x02\x01\x01p\x04\x04\x00\x00\x01\x02")) // an owned fifo
	f.Fuzz(func(t *testing.T, b []byte) {
		checkScan(t, b)
		tr, err := Decode(b)
		if err != nil {
			if tr != nil || !errors.Is(err, ErrMalformed) {
				t.Fatalf("Decode = %v, %v; want nil and ErrMalformed", tr, err)
			}
			return
		}
		if err := tr.Validate(); err != nil {
			t.Fatalf("accepted tree fails Validate: %v", err)
		}
		out, err := tr.Encode()
		if err != nil {
			t.Fatalf("accepted tree fails Encode: %v", err)
		}
		if !bytes.Equal(out, b) {
			t.Fatalf("re-encoding differs:\n  in %x\n out %x", b, out)
		}
		for i := range tr.Entries {
			if e, ok := tr.Lookup(tr.Entries[i].Name); !ok || e != &tr.Entries[i] {
				t.Fatalf("Lookup(%q) missed", tr.Entries[i].Name)
			}
		}
	})
}
