package cas

import (
	"bytes"
	"fmt"
	"sync"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// TestEncodersMatchZstd: the pool's frames are zstd's own, byte for
// byte, at both levels a Store uses, from goroutines at once.
func TestEncodersMatchZstd(t *testing.T) {
	for _, lvl := range []zstd.EncoderLevel{zstd.SpeedDefault, zstd.SpeedFastest} {
		opts := []zstd.EOption{zstd.WithWindowSize(1 << 20), zstd.WithEncoderCRC(false), zstd.WithLowerEncoderMem(true), zstd.WithEncoderLevel(lvl)}
		ref, err := zstd.NewWriter(nil, opts...)
		if err != nil {
			t.Fatal(err)
		}
		p, err := newEncoders(3, opts...)
		if err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		for g := range 6 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range 20 {
					src := bytes.Repeat(fmt.Appendf(nil, "line %d of %d: some text\n", i, g), 50*(i+1))
					got := p.EncodeAll(src, []byte{codecZstd})
					want := ref.EncodeAll(src, []byte{codecZstd})
					if !bytes.Equal(got, want) {
						t.Errorf("level %v, goroutine %d, input %d: frames differ", lvl, g, i)
						return
					}
				}
			}()
		}
		wg.Wait()
		p.close()
		ref.Close()
	}
}

// TestEncodersLastFirst: encodes one after another use the encoder put
// back last, so only its tables are ever touched.
func TestEncodersLastFirst(t *testing.T) {
	p, err := newEncoders(4, zstd.WithEncoderLevel(zstd.SpeedDefault))
	if err != nil {
		t.Fatal(err)
	}
	defer p.close()
	first := p.free[len(p.free)-1]
	for i := range 5 {
		p.EncodeAll(bytes.Repeat([]byte("abc"), 1000), nil)
		if got := p.free[len(p.free)-1]; got != first || len(p.free) != 4 {
			t.Fatalf("encode %d: the next encoder is not the one used before (%d free)", i, len(p.free))
		}
	}
}

// TestEncodersOneWhileSmall: encodes from goroutines at once use one
// encoder until the pool has encoded soloBytes, so a small turn touches
// the tables of one encoder only. Past that they use several.
func TestEncodersOneWhileSmall(t *testing.T) {
	p, err := newEncoders(4, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderCRC(false))
	if err != nil {
		t.Fatal(err)
	}
	defer p.close()
	run := func(n int) {
		start := make(chan struct{})
		var wg sync.WaitGroup
		for g := range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				for i := range 4 {
					p.EncodeAll(textBytes(uint64(g*10+i), n), nil)
				}
			}()
		}
		close(start)
		wg.Wait()
	}
	run(soloBytes / 64) // 32 encodes: half of soloBytes
	if p.most != 1 {
		t.Fatalf("below soloBytes: %d encoders used at once, want 1", p.most)
	}
	for range 20 {
		run(soloBytes / 8)
		if p.most > 1 {
			return
		}
	}
	t.Errorf("past soloBytes: never more than one encoder at once")
}
