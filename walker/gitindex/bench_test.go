package gitindex

import (
	"bytes"
	"os"
	"testing"
)

// BenchmarkBuild builds the tracked set of the index at
// $GITINDEX_BENCH (skipped without it).
func BenchmarkBuild(b *testing.B) {
	p := os.Getenv("GITINDEX_BENCH")
	if p == "" {
		b.Skip("GITINDEX_BENCH not set")
	}
	data, err := os.ReadFile(p)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := Build(bytes.NewReader(data), int64(len(data)), false, nil, ""); err != nil {
			b.Fatal(err)
		}
	}
}
