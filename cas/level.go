package cas

// Compression effort. A Writer compresses its first levelWarmup bytes
// of content at zstd's fastest level, the next ones up to levelBudget at
// the default level, and the rest at the fastest again.
//
// The default level's match tables are over a megabyte. A process
// touches them on first use, and on this kind of VM those page faults
// cost more than compressing a small turn: a 27-path turn captured
// with 350 fewer faults (about 3,100 to 2,750). The fastest level's
// tables are already in use for trees.
//
// A first capture of a large tree is bound by compression: on the
// bench's 100k tree zstd's default level took 71% of its CPU. Past
// levelBudget the fastest took 22% less CPU there for a store 5%
// larger. Decoding does not depend on the level. See docs/design.md,
// "Compression".

const (
	// levelWarmup is how much content a Writer compresses at the
	// fastest level before it turns to the default.
	levelWarmup = 1 << 20
	// levelBudget is how much content, warmup included, a Writer
	// compresses before it turns back to the fastest level.
	levelBudget = 1 << 30
)

// encodersFor returns the encoders for n more bytes of content: the
// fastest level's within the warmup and past the budget (Store.warmup
// and Store.budget, which tests may change), else the default level's.
func (w *Writer) encodersFor(n int) *encoders {
	if e := w.encoded.Add(int64(n)); e <= w.s.warmup || e > w.s.budget {
		return w.s.fast
	}
	return w.s.enc
}
