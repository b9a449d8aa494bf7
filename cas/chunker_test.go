package cas

import (
	"bufio"
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/turnback/turnback/internal/testtier"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// chunkAll splits r with a Chunker.
func chunkAll(t testing.TB, r io.Reader) [][]byte {
	t.Helper()
	c := NewChunker(r)
	var out [][]byte
	for {
		chunk, err := c.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("Next: %v", err)
		}
		out = append(out, chunk)
	}
	if _, err := c.Next(); err != io.EOF {
		t.Fatalf("Next after the end = %v, want io.EOF", err)
	}
	return out
}

func chunkSizes(chunks [][]byte) []int {
	sizes := make([]int, len(chunks))
	for i, c := range chunks {
		sizes[i] = len(c)
	}
	return sizes
}

func chunkHashes(chunks [][]byte) []Hash {
	hs := make([]Hash, len(chunks))
	for i, c := range chunks {
		hs[i] = Sum(c)
	}
	return hs
}

// checkChunks checks that chunks are data cut into pieces within the
// size limits: every chunk but the last in (MinChunk, MaxChunk], the last
// in (0, MaxChunk].
func checkChunks(t *testing.T, data []byte, chunks [][]byte) {
	t.Helper()
	if !bytes.Equal(bytes.Join(chunks, nil), data) {
		t.Fatal("chunks do not join up to the input")
	}
	for i, c := range chunks {
		last := i == len(chunks)-1
		if len(c) > MaxChunk || len(c) == 0 || (!last && len(c) <= MinChunk) {
			t.Errorf("chunk %d of %d: %d bytes, outside (%d, %d]", i, len(chunks), len(c), MinChunk, MaxChunk)
		}
	}
}

func TestChunkerBoundaries(t *testing.T) {
	t.Parallel()
	data := randBytes(800, 4<<20+777)
	want := chunkAll(t, bytes.NewReader(data))
	checkChunks(t, data, want)

	// The cut points depend on the bytes only, not on how they are read.
	readers := map[string]io.Reader{
		"half":     iotest.HalfReader(bytes.NewReader(data)),
		"data+EOF": iotest.DataErrReader(bytes.NewReader(data)),
		"bufio 1k": bufio.NewReaderSize(iotest.HalfReader(bytes.NewReader(data)), 1024),
	}
	for name, r := range readers {
		if got := chunkAll(t, r); !slices.Equal(chunkSizes(got), chunkSizes(want)) {
			t.Errorf("%s reader: sizes %v, want %v", name, chunkSizes(got), chunkSizes(want))
		}
	}
	// Boundary applied directly gives the same cuts.
	var direct []int
	for rest := data; len(rest) > 0; {
		n := Boundary(rest[:min(len(rest), MaxChunk)])
		direct = append(direct, n)
		rest = rest[n:]
	}
	if !slices.Equal(direct, chunkSizes(want)) {
		t.Errorf("Boundary: %v, Chunker: %v", direct, chunkSizes(want))
	}

	// The average is near AvgChunk.
	mean := (len(data) - len(want[len(want)-1])) / (len(want) - 1)
	t.Logf("%d chunks, mean %d KiB", len(want), mean>>10)
	if mean < AvgChunk*3/4 || mean > AvgChunk*5/4 {
		t.Errorf("mean chunk size %d, want about %d", mean, AvgChunk)
	}
}

func TestChunkerEdges(t *testing.T) {
	for _, n := range []int{0, 1, MinChunk, MinChunk + 1, MaxChunk, MaxChunk + 1} {
		data := randBytes(uint64(810+n), n)
		chunks := chunkAll(t, bytes.NewReader(data))
		checkChunks(t, data, chunks)
		if n <= MinChunk && len(chunks) != min(n, 1) {
			t.Errorf("%d bytes: %d chunks, want one", n, len(chunks))
		}
		if got := Boundary(data); got > MaxChunk || (n <= MinChunk && got != n) {
			t.Errorf("Boundary(%d bytes) = %d", n, got)
		}
	}

	// No content to cut at: every chunk has the same length.
	zeros := make([]byte, 3<<20)
	chunks := chunkAll(t, bytes.NewReader(zeros))
	checkChunks(t, zeros, chunks)
	for _, c := range chunks[:len(chunks)-1] {
		if len(c) != len(chunks[0]) {
			t.Fatalf("zeros cut unevenly: %v", chunkSizes(chunks))
		}
	}

	// A read error is returned, not taken for the end.
	boom := errors.New("boom")
	for _, n := range []int{0, 100, 2 << 20} {
		c := NewChunker(io.MultiReader(bytes.NewReader(randBytes(820, n)), iotest.ErrReader(boom)))
		var err error
		for err == nil {
			_, err = c.Next()
		}
		if !errors.Is(err, boom) {
			t.Errorf("after %d bytes: Next = %v, want %v", n, err, boom)
		}
	}
}

// TestChunkerShift: inserting or removing bytes changes only the chunks
// around the edit; the rest of the stream is cut exactly as before.
func TestChunkerShift(t *testing.T) {
	testtier.NotUnderRace(t)
	t.Parallel()
	data := randBytes(830, 5<<20)
	orig := chunkAll(t, bytes.NewReader(data))
	have := make(map[Hash]bool)
	for _, h := range chunkHashes(orig) {
		have[h] = true
	}
	edits := []struct {
		name   string
		edited []byte
		maxNew int
	}{
		{"insert 1000 at start", slices.Concat(randBytes(831, 1000), data), 2},
		{"insert 1 at start", slices.Concat([]byte{42}, data), 2},
		{"drop 5000 at start", data[5000:], 2},
		{"insert 100 in the middle", slices.Concat(data[:3<<20], randBytes(832, 100), data[3<<20:]), 3},
	}
	for _, e := range edits {
		chunks := chunkAll(t, bytes.NewReader(e.edited))
		checkChunks(t, e.edited, chunks)
		var fresh int
		for _, h := range chunkHashes(chunks) {
			if !have[h] {
				fresh++
			}
		}
		t.Logf("%s: %d of %d chunks new", e.name, fresh, len(chunks))
		if fresh > e.maxNew {
			t.Errorf("%s: %d of %d chunks new, want at most %d", e.name, fresh, len(chunks), e.maxNew)
		}
	}
}

const goldenPath = "testdata/chunks.golden"

// goldenInput is the input of TestChunkerGolden: 4 MiB of splitmix64.
func goldenInput() []byte { return randBytes(0x7475726e, 4<<20) }

// TestChunkerGolden pins the cut points. Stores dedup against the chunks
// they already hold, so a change to the chunker (table, mask, limits)
// silently stops dedup of every large file: such a change needs a new
// index version, not just -update.
func TestChunkerGolden(t *testing.T) {
	data := goldenInput()
	sizes := chunkSizes(chunkAll(t, bytes.NewReader(data)))
	var b strings.Builder
	b.WriteString("# Chunk sizes of goldenInput() (4 MiB of splitmix64) cut by NewChunker.\n")
	b.WriteString("# Never change them casually: stores dedup against existing chunks.\n")
	fmt.Fprintf(&b, "input %s\n", Sum(data))
	for _, n := range sizes {
		fmt.Fprintln(&b, n)
	}
	if *update {
		if err := os.MkdirAll(filepath.Dir(goldenPath), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(goldenPath, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote %s", goldenPath)
		return
	}
	raw, err := os.ReadFile(goldenPath)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	var wantInput string
	var want []int
	for i, line := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
		switch {
		case strings.HasPrefix(line, "#"):
		case strings.HasPrefix(line, "input "):
			wantInput = strings.TrimPrefix(line, "input ")
		default:
			n, err := strconv.Atoi(line)
			if err != nil {
				t.Fatalf("%s:%d: %v", goldenPath, i+1, err)
			}
			want = append(want, n)
		}
	}
	if got := Sum(data).String(); got != wantInput {
		t.Fatalf("test input changed: hash %s, golden file has %s", got, wantInput)
	}
	if !slices.Equal(sizes, want) {
		t.Errorf("chunk sizes changed (this breaks dedup against existing stores):\n got %v\nwant %v", sizes, want)
	}
}
