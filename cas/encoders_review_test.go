package cas

import (
	"bytes"
	"runtime"
	"sync"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// TestEncodersPanicKeepsSlot: an encode that panics gives its encoder
// and its slot back, as zstd's own pool did (a deferred put). Before,
// each such panic kept a slot: the daemon's HTTP server recovers a
// handler's panic, and after GOMAXPROCS of them every encode waited
// forever. A nil encoder stands for one that panics.
func TestEncodersPanicKeepsSlot(t *testing.T) {
	p := &encoders{slots: make(chan struct{}, 1), free: []*zstd.Encoder{nil}}
	func() {
		defer func() {
			if recover() == nil {
				t.Fatal("a nil encoder did not panic")
			}
		}()
		p.EncodeAll([]byte("data"), nil)
	}()
	if len(p.slots) != 0 || len(p.free) != 1 {
		t.Errorf("after a panicking encode: %d slots taken, %d encoders free; want 0 and 1", len(p.slots), len(p.free))
	}
}

// TestEncodersManyGoroutines: many more goroutines than encoders (2,
// as on this machine), inputs from empty to past a zstd block and past
// the window: every frame decodes to its input, and at the end every
// encoder is free, once.
func TestEncodersManyGoroutines(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	opts := []zstd.EOption{zstd.WithWindowSize(1 << 20), zstd.WithEncoderCRC(false), zstd.WithLowerEncoderMem(true)}
	p, err := newEncoders(2, opts...)
	if err != nil {
		t.Fatal(err)
	}
	defer p.close()
	dec, err := zstd.NewReader(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer dec.Close()
	sizes := []int{0, 1, 64, 4 << 10, 128 << 10, 128<<10 + 1, 1<<20 + 5}
	var wg sync.WaitGroup
	for g := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i, n := range sizes {
				src := textBytes(uint64(g*100+i), n)
				frame := p.EncodeAll(src, nil)
				got, err := dec.DecodeAll(frame, nil)
				if err != nil || !bytes.Equal(got, src) {
					t.Errorf("goroutine %d, %d bytes: decodes to %d bytes, %v", g, n, len(got), err)
					return
				}
			}
		}()
	}
	wg.Wait()
	if len(p.slots) != 0 || len(p.free) != 2 || p.free[0] == p.free[1] {
		t.Errorf("at the end: %d slots taken, %d encoders free (distinct: %v)", len(p.slots), len(p.free), len(p.free) == 2 && p.free[0] != p.free[1])
	}
}

// TestStoreCloseWhileEncoding: a Store closed while goroutines still
// write through it (which the old zstd pool allowed: its Close does
// nothing to EncodeAll): no panic and no race, whatever the writes
// return.
func TestStoreCloseWhileEncoding(t *testing.T) {
	s, err := NewStore(NewMemory())
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	start := make(chan struct{})
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			for i := range 50 {
				data := textBytes(uint64(g*1000+i), 1000+i*900)
				if out := s.encode(data); len(out) == 0 {
					t.Errorf("empty encoding")
				}
			}
		}()
	}
	close(start)
	if err := s.Close(); err != nil {
		t.Error(err)
	}
	wg.Wait()
}
