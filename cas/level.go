package cas

// Large captures (issue #34): a first capture of a folder of a million
// files spends some two thirds of its CPU time in zstd, most of it on
// blocks at the default level. Once a Writer has stored bulkBlobs new
// blobs, it compresses the rest at zstd's fastest level: about a third
// less CPU for that part, for a few percent more room. Folders up to a
// few hundred thousand files, and every capture after a first one,
// stay at the default level.

// bulkBlobs is the count of new blobs a Writer stores at the default
// level; the ones after go at the fastest. A variable for tests.
var bulkBlobs int64 = 200_000

// bulk reports whether w has stored more than bulkBlobs new blobs.
func (w *Writer) bulk() bool { return w.added.Load() > bulkBlobs }
