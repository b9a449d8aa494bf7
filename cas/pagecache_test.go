package cas

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestDropCache: dropping a synced file's pages from the page cache is
// only advice; the file reads back whole, and a file opened for
// appending takes more writes after it.
func TestDropCache(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	want := randBytes(1, 3<<20+17)
	if _, err := f.Write(want); err != nil {
		t.Fatal(err)
	}
	if err := f.Sync(); err != nil {
		t.Fatal(err)
	}
	dropCache(f)
	tail := textBytes(2, 5000)
	if _, err := f.Write(tail); err != nil {
		t.Fatal(err)
	}
	want = append(want, tail...)
	got, err := os.ReadFile(path)
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("read back %d bytes (%v), want %d", len(got), err, len(want))
	}
}
