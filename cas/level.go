package cas

// Compression effort. A first capture of a large tree is bound by
// compression: on the bench's 100k tree zstd's default level took 71%
// of its CPU. So a Writer compresses the first levelBudget bytes of
// content at the default level and the rest at the fastest, which took
// 22% less CPU there for a store 5% larger. Every capture but the first
// of a large tree stays within the budget. Decoding does not depend on
// the level. See docs/design.md, "Compression".

// levelBudget is how much content a Writer compresses at the default
// level (Store.budget, which tests may lower).
const levelBudget = 1 << 30

// encodersFor returns the encoders for n more bytes of content: the
// default level's while w stays within levelBudget, else the fastest's.
func (w *Writer) encodersFor(n int) *encoders {
	if w.encoded.Add(int64(n)) > w.s.budget {
		return w.s.fast
	}
	return w.s.enc
}
