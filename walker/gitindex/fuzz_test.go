package gitindex

import (
	"bytes"
	"crypto/sha1"
	"os"
	"path/filepath"
	"testing"
)

// FuzzDecodeIndex feeds arbitrary bytes to Decode and Build: nothing may
// panic, every path reported is valid, every file decoded is one the
// Set tracks, and the checksum is either right or zero. Inputs get a correct SHA-1 trailer half of the time,
// so the fuzzer reaches past the checksum check.
func FuzzDecodeIndex(f *testing.F) {
	for _, v := range []string{"2", "3", "4"} {
		dir := gitRepo(f, files, v)
		if data, err := os.ReadFile(filepath.Join(dir, ".git", "index")); err == nil {
			f.Add(data[:len(data)-20], true)
		}
	}
	f.Add([]byte("DIRC\x00\x00\x00\x04\xff\xff\xff\xff"), true)
	f.Fuzz(func(t *testing.T, body []byte, fix bool) {
		data := body
		if fix {
			sum := sha1.Sum(body)
			data = append(bytes.Clone(body), sum[:]...)
		}
		n := 0
		var paths []string
		err := Decode(bytes.NewReader(data), int64(len(data)), false, func(e *Entry) error {
			if !validPath(e.Path) || len(e.Path) > maxPath {
				t.Fatalf("invalid path %q reported", e.Path)
			}
			if !e.IsDir() {
				paths = append(paths, string(bytes.TrimSuffix(e.Path, []byte("/"))))
			}
			n++
			return nil
		})
		if err == nil && n > len(data)/62 {
			t.Fatalf("%d entries from %d bytes", n, len(data))
		}
		if err == nil {
			// Every file decoded is one the Set tracks, in index
			// order or not (a trailing "/" trimmed, as Build does).
			s, err := Build(bytes.NewReader(data), int64(len(data)), false, "")
			if err != nil {
				t.Fatalf("Decode read it, Build failed: %v", err)
			}
			for _, p := range paths {
				if !s.HasFile(p) {
					t.Fatalf("HasFile(%q) = false", p)
				}
			}
		}
		_, _ = Build(bytes.NewReader(data), int64(len(data)), true, "a")
	})
}
