package restore

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCopySparseSizes: whatever the content ends with (data, a partial
// block, whole blocks of zeros, nothing), the copy has exactly its bytes
// and size, through the default buffer and through a small one that
// splits the content across reads.
func TestCopySparseSizes(t *testing.T) {
	z := func(n int) string { return strings.Repeat("\x00", n) }
	cases := []struct{ name, data string }{
		{"empty", ""},
		{"data", "hello"},
		{"one zero block", z(holeBlock)},
		{"zero blocks only", z(5 * holeBlock)},
		{"zeros, not a whole block", z(holeBlock - 1)},
		{"data then a trailing hole", "head" + z(6*holeBlock)},
		{"data then zeros ending mid-block", "head" + z(3*holeBlock+100)},
		{"hole in the middle", "a" + z(4*holeBlock) + "b"},
		{"data at a block's last byte then a hole", z(holeBlock-1) + "x" + z(2*holeBlock)},
	}
	for _, c := range cases {
		for _, buf := range [][]byte{nil, make([]byte, 2*holeBlock)} {
			f, err := os.Create(filepath.Join(t.TempDir(), "f"))
			if err != nil {
				t.Fatal(err)
			}
			n, err := copySparse(f, strings.NewReader(c.data), buf)
			f.Close()
			if err != nil || n != int64(len(c.data)) {
				t.Fatalf("%s (buffer %d): copied %d, %v; want %d", c.name, len(buf), n, err, len(c.data))
			}
			got, err := os.ReadFile(f.Name())
			if err != nil || !bytes.Equal(got, []byte(c.data)) {
				t.Errorf("%s (buffer %d): content differs: %d bytes, want %d (%v)", c.name, len(buf), len(got), len(c.data), err)
			}
		}
	}
}
