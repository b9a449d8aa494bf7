//go:build linux

package dirent

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// direntBuffers lists dir with getdents into buffers of size bufSize and
// returns what each call filled.
func direntBuffers(t testing.TB, dir string, bufSize int) [][]byte {
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	var out [][]byte
	for {
		buf := make([]byte, bufSize)
		n, err := unix.ReadDirent(fd, buf)
		if err != nil {
			t.Fatal(err)
		}
		if n <= 0 {
			return out
		}
		out = append(out, buf[:n])
	}
}

// TestNames: the names Names takes from real getdents
// output are those x/sys's ParseDirent takes, in the same order, for
// names of every length up to 255 bytes, with spaces, newlines and
// non-ASCII bytes, over buffers that hold one record or many; and
// reusing the list they are appended to changes nothing.
func TestNames(t *testing.T) {
	dir := t.TempDir()
	names := []string{"a", "é", "with space", "new\nline", "tab\t", strings.Repeat("n", 255), "..x", ".hidden", "x.", "\xff\xfe"}
	for i := range 300 {
		names = append(names, strings.Repeat("f", 1+i%200)+"-"+string(rune('a'+i%26)))
	}
	for _, n := range names {
		if err := os.WriteFile(filepath.Join(dir, n), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o700); err != nil {
		t.Fatal(err)
	}
	for _, size := range []int{300, 1024, 32 << 10} {
		var got, want []string
		reused := make([]string, 0, 4)
		for _, b := range direntBuffers(t, dir, size) {
			got = Names(b, got)
			_, _, want = unix.ParseDirent(b, -1, want)
			reused = Names(b, reused[:0])
			var one []string
			_, _, one = unix.ParseDirent(b, -1, one)
			if !slices.Equal(reused, one) {
				t.Fatalf("buffer of %d: reused list %q, want %q", size, reused, one)
			}
		}
		if !slices.Equal(got, want) {
			t.Fatalf("buffers of %d bytes: parseDirents %d names, ParseDirent %d", size, len(got), len(want))
		}
		if len(got) != len(names)+1 {
			t.Fatalf("buffers of %d bytes: %d names, want %d", size, len(got), len(names)+1)
		}
	}
}

// FuzzNames: Names never panics on any bytes, and never takes an empty
// name, ".", ".." or one with a NUL.
func FuzzNames(f *testing.F) {
	dir := f.TempDir()
	for _, n := range []string{"a", "bb", "é"} {
		if err := os.WriteFile(filepath.Join(dir, n), nil, 0o600); err != nil {
			f.Fatal(err)
		}
	}
	for _, b := range direntBuffers(f, dir, 4096) {
		f.Add(b)
	}
	f.Add([]byte{})
	f.Add(make([]byte, 19))
	f.Fuzz(func(t *testing.T, b []byte) {
		names := Names(b, nil)
		for _, n := range names {
			if n == "" || n == "." || n == ".." || strings.IndexByte(n, 0) >= 0 {
				t.Fatalf("parsed name %q", n)
			}
		}
	})
}
