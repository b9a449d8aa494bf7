package cas

import (
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/klauspost/compress/zstd"
)

// encoders is a pool of single-threaded zstd encoders of one level. It
// hands out the encoder put back last, so encodes that do not overlap
// in time all use one encoder. An encoder's first use touches its match
// tables, over a megabyte at the default level: that costs more page
// faults than a small turn's compression takes. zstd's own pool hands
// its encoders out in turn, so sequential calls touched every one.
// At most max encodes run at once, and only one while the pool has
// encoded less than soloBytes: a turn's few blocks then all go to one
// encoder, and a second one's tables are not touched (about 200 faults).
type encoders struct {
	slots chan struct{} // a token per encode in progress
	mu    sync.Mutex
	free  []*zstd.Encoder // the last one put back is at the end
	all   []*zstd.Encoder
	most  int // the most encoders out at once
	// solo is held by an encode while encoded is under soloBytes.
	solo    sync.Mutex
	encoded atomic.Int64
}

// soloBytes: until a pool has encoded this much, its encodes wait for
// one another rather than take a second encoder.
const soloBytes = 1 << 20

// newEncoders makes a pool of max encoders with the options opts. The
// encoders allocate their tables on first use.
func newEncoders(max int, opts ...zstd.EOption) (*encoders, error) {
	if max < 1 {
		max = 1
	}
	p := &encoders{slots: make(chan struct{}, max)}
	opts = append(opts[:len(opts):len(opts)], zstd.WithEncoderConcurrency(1))
	for range max {
		e, err := zstd.NewWriter(nil, opts...)
		if err != nil {
			p.close()
			return nil, fmt.Errorf("cas: zstd encoder: %w", err)
		}
		p.all = append(p.all, e)
	}
	// The first encoder handed out is all[0].
	for i := len(p.all) - 1; i >= 0; i-- {
		p.free = append(p.free, p.all[i])
	}
	return p, nil
}

// EncodeAll appends the zstd frame of src to dst, as zstd's EncodeAll.
// The encoder goes back even if the encode panics, as in zstd's pool: a
// recovered panic (the daemon's HTTP server) must not keep a slot.
func (p *encoders) EncodeAll(src, dst []byte) []byte {
	if p.encoded.Load() < soloBytes {
		p.solo.Lock()
		defer p.solo.Unlock()
	}
	defer p.encoded.Add(int64(len(src)))
	p.slots <- struct{}{}
	p.mu.Lock()
	e := p.free[len(p.free)-1]
	p.free = p.free[:len(p.free)-1]
	p.most = max(p.most, len(p.all)-len(p.free))
	p.mu.Unlock()
	defer func() {
		p.mu.Lock()
		p.free = append(p.free, e)
		p.mu.Unlock()
		<-p.slots
	}()
	return e.EncodeAll(src, dst)
}

// close releases the encoders.
func (p *encoders) close() {
	for _, e := range p.all {
		_ = e.Close()
	}
}
