//go:build linux

package trees

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/turnback/turnback/bench/truth"
)

func TestParseCount(t *testing.T) {
	cases := []struct {
		in   string
		want int
		ok   bool
	}{
		{"10k", 10_000, true},
		{"100K", 100_000, true},
		{"1m", 1_000_000, true},
		{"2500", 2500, true},
		{"0", 0, false},
		{"-5k", 0, false},
		{"go", 0, false},
		{"k", 0, false},
		{"1.5k", 0, false},
	}
	for _, tc := range cases {
		if got, ok := ParseCount(tc.in); got != tc.want || ok != tc.ok {
			t.Errorf("ParseCount(%q) = %d, %v, want %d, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

func quiet(string, ...any) {}

// TestSyntheticCache generates a tiny tree, finds it cached the second
// time, repairs it after damage, and makes it again for another seed.
func TestSyntheticCache(t *testing.T) {
	cache := t.TempDir()
	a, err := Synthetic(cache, "300", 300, 1, quiet)
	if err != nil {
		t.Fatal(err)
	}
	if a.Cached || a.Files+a.Links != 300 || a.Dirs == 0 {
		t.Fatalf("first: cached %v, %d files, %d links, %d dirs", a.Cached, a.Files, a.Links, a.Dirs)
	}
	b, err := Synthetic(cache, "300", 300, 1, quiet)
	if err != nil {
		t.Fatal(err)
	}
	if !b.Cached || b.Files != a.Files || b.Bytes != a.Bytes || b.Dir != a.Dir {
		t.Fatalf("second: cached %v, %d files, %d bytes", b.Cached, b.Files, b.Bytes)
	}
	if err := os.WriteFile(filepath.Join(b.Dir, "README.md"), []byte("damaged"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := b.CheckPristine(quiet); err != nil {
		t.Fatal(err)
	}
	if v, err := truth.Verify(b.Dir, b.Truth, true); err != nil || v.Count != 0 {
		t.Fatalf("after CheckPristine: %v %+v", err, v)
	}
	c, err := Synthetic(cache, "300", 300, 2, quiet)
	if err != nil {
		t.Fatal(err)
	}
	if c.Cached || c.Dir == a.Dir {
		t.Fatalf("another seed: cached %v, dir %s", c.Cached, c.Dir)
	}
}

// TestUser copies a folder (repairable from it) or uses it in place.
func TestUser(t *testing.T) {
	src := t.TempDir()
	if err := os.MkdirAll(filepath.Join(src, "sub"), 0o750); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(src, "sub", "f.txt"), []byte("content\n"), 0o640); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("sub/f.txt", filepath.Join(src, "l")); err != nil {
		t.Fatal(err)
	}
	cp, err := User(t.TempDir(), src, false, quiet)
	if err != nil {
		t.Fatal(err)
	}
	if cp.Dir == src || cp.Files != 1 || cp.Links != 1 || cp.Dirs != 2 || cp.Source == nil {
		t.Fatalf("copy: %+v", cp)
	}
	if v, err := truth.Verify(cp.Dir, cp.Truth, true); err != nil || v.Count != 0 {
		t.Fatalf("copy does not verify: %v %+v", err, v)
	}
	os.Remove(filepath.Join(cp.Dir, "sub", "f.txt"))
	if err := cp.CheckPristine(quiet); err != nil {
		t.Fatal(err)
	}
	in, err := User(t.TempDir(), src, true, quiet)
	if err != nil {
		t.Fatal(err)
	}
	if in.Dir != src || in.Source != nil || in.Files != 1 {
		t.Fatalf("in place: %+v", in)
	}
	if _, err := User(t.TempDir(), filepath.Join(src, "sub", "f.txt"), false, quiet); err == nil {
		t.Error("User of a file: no error")
	}
}
