package cas

import (
	"bytes"
	"runtime"
	"testing"

	"github.com/turnback/turnback/internal/testtier"
)

// copyingPutter is a blockPutter that copies each stored block, as the
// pack writer does, and keeps the copies.
type copyingPutter struct{ blocks [][]byte }

func (p *copyingPutter) putBlock(stored []byte, _ []blockMember) error {
	p.blocks = append(p.blocks, bytes.Clone(stored))
	return nil
}

// TestWriteBlockReusesItsBuffer: writeBlock compresses into a pooled
// buffer. A first capture of a million small files compressed 5 GB of
// blocks into buffers allocated anew, and the collector ran 700 times.
// Each block must still be stored whole and decode to its content.
func TestWriteBlockReusesItsBuffer(t *testing.T) {
	if testtier.UnderRace() {
		t.Skip("under the race detector, sync.Pool drops a quarter of what it is given")
	}
	s := newTestStore(t, NewMemory())
	s.warmup, s.budget = 0, 1<<40 // one encoder, made before the measure
	w := s.NewWriter()
	defer w.Cancel()
	const blocks = 100
	contents := make([][]byte, blocks)
	for i := range contents {
		contents[i] = textBytes(uint64(i), blockTarget)
	}
	p := &copyingPutter{blocks: make([][]byte, 0, blocks)}
	// The first block fills the pool; the rest are measured.
	if err := w.writeBlock(p, bytes.Clone(contents[0]), nil); err != nil {
		t.Fatal(err)
	}
	in := make([][]byte, blocks) // copies made before the measure
	for i := range in {
		in[i] = bytes.Clone(contents[i])
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for i := 1; i < blocks; i++ {
		if err := w.writeBlock(p, in[i], nil); err != nil {
			t.Fatal(err)
		}
	}
	runtime.ReadMemStats(&after)
	// The copies the putter keeps are about half a block each; a new
	// buffer per block added a whole block's bound more.
	kept := 0
	for _, b := range p.blocks[1:] {
		kept += len(b)
	}
	if extra := int(after.TotalAlloc-before.TotalAlloc) - kept; extra > blocks*blockTarget/4 {
		t.Errorf("%d blocks allocated %d bytes beside the %d the putter kept, want under %d", blocks-1, extra, kept, blocks*blockTarget/4)
	}
	for i, stored := range p.blocks {
		if stored[0] != codecZstd {
			t.Fatalf("block %d stored with codec %d, want zstd", i, stored[0])
		}
		got, err := s.dec.DecodeAll(stored[1:], nil)
		if err != nil || !bytes.Equal(got, contents[i]) {
			t.Fatalf("block %d: %d bytes decoded, %v; want its %d bytes of content", i, len(got), err, len(contents[i]))
		}
	}
}
