//go:build linux

package truth

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// writeTree makes a small tree: files (one executable), a nested
// directory, a symlink.
func writeTree(t *testing.T, root string) {
	t.Helper()
	for _, f := range []struct {
		path, data string
		mode       os.FileMode
	}{
		{"a.txt", "alpha\n", 0o644},
		{"run.sh", "#!/bin/sh\n", 0o755},
		{"d/e/b.txt", "bravo bravo\n", 0o600},
	} {
		p := filepath.Join(root, filepath.FromSlash(f.path))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(f.data), f.mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, f.mode); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("a.txt", filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
}

// scanned makes a tree and its ground truth.
func scanned(t *testing.T) (string, *State) {
	t.Helper()
	root := t.TempDir()
	writeTree(t, root)
	s, err := Scan(root)
	if err != nil {
		t.Fatal(err)
	}
	return root, s
}

// rewrite writes data to the file rel of root and sets its mtime to a
// fixed past time: file times are coarse (a clock tick), so a rewrite
// right after Scan could keep the recorded ctime and mtime and look
// untouched.
func rewrite(root, rel, data string) error {
	p := filepath.Join(root, rel)
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		return err
	}
	old := time.Date(2001, 2, 3, 4, 5, 6, 0, time.UTC)
	return os.Chtimes(p, old, old)
}

type dirSource string

func (d dirSource) Content(rel string) (io.ReadCloser, error) {
	return os.Open(filepath.Join(string(d), filepath.FromSlash(rel)))
}

func TestScan(t *testing.T) {
	_, s := scanned(t)
	files, dirs, links, bytes := s.Stats()
	if files != 3 || dirs != 3 || links != 1 || bytes != int64(len("alpha\n#!/bin/sh\nbravo bravo\n")) {
		t.Errorf("Stats = %d files, %d dirs, %d links, %d bytes", files, dirs, links, bytes)
	}
	for _, p := range []string{"", "a.txt", "d", "d/e", "d/e/b.txt", "link", "run.sh"} {
		if s.Lookup(p) < 0 {
			t.Errorf("Lookup(%q) = -1", p)
		}
	}
	if s.Lookup("nope") >= 0 {
		t.Error("Lookup of a path not in the tree")
	}
	if e := &s.Ents[s.Lookup("link")]; s.Link(e) != "a.txt" || e.Kind != KindSymlink {
		t.Errorf("link: kind %d, target %q", e.Kind, s.Link(e))
	}
	if e := &s.Ents[s.Lookup("run.sh")]; e.Perm != 0o755 {
		t.Errorf("run.sh: mode %o", e.Perm)
	}
}

// TestVerify changes the tree one way per case and checks what Verify
// reports; re-reading (Rehashed) happens only where stat data changed,
// or everywhere with full.
func TestVerify(t *testing.T) {
	cases := []struct {
		name     string
		change   func(root string) error
		want     []string // mismatch prefixes, in any order
		rehashed int64    // -1: either
	}{
		{"unchanged", func(string) error { return nil }, nil, 0},
		{"same size, other content", func(r string) error { return rewrite(r, "a.txt", "ALPHA\n") }, []string{"content: a.txt"}, 1},
		{"rewritten identical", func(r string) error { return rewrite(r, "a.txt", "alpha\n") }, nil, 1},
		{"size", func(r string) error { return rewrite(r, "a.txt", "alpha!\n") }, []string{"size: a.txt"}, 0},
		{"mode", func(r string) error { return os.Chmod(filepath.Join(r, "run.sh"), 0o644) }, []string{"mode: run.sh"}, -1}, // re-read only if the ctime moved on
		{"extra", func(r string) error { return os.WriteFile(filepath.Join(r, "new"), nil, 0o644) }, []string{"extra: new"}, 0},
		{"missing", func(r string) error { return os.Remove(filepath.Join(r, "d/e/b.txt")) }, []string{"missing: d/e/b.txt"}, 0},
		{"link target", func(r string) error {
			os.Remove(filepath.Join(r, "link"))
			return os.Symlink("run.sh", filepath.Join(r, "link"))
		}, []string{"link: link"}, 0},
		{"kind", func(r string) error {
			os.Remove(filepath.Join(r, "link"))
			return os.WriteFile(filepath.Join(r, "link"), nil, 0o644)
		}, []string{"kind: link"}, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			root, s := scanned(t)
			if err := tc.change(root); err != nil {
				t.Fatal(err)
			}
			v, err := Verify(root, s, false)
			if err != nil {
				t.Fatal(err)
			}
			if v.Count != len(tc.want) || (tc.rehashed >= 0 && v.Rehashed != tc.rehashed) {
				t.Errorf("Count %d, Rehashed %d, want %d, %d: %v", v.Count, v.Rehashed, len(tc.want), tc.rehashed, v.Mismatches)
			}
			for _, w := range tc.want {
				found := false
				for _, m := range v.Mismatches {
					found = found || strings.HasPrefix(m, w)
				}
				if !found {
					t.Errorf("no %q in %v", w, v.Mismatches)
				}
			}
			full, err := Verify(root, s, true)
			if err != nil {
				t.Fatal(err)
			}
			if full.Count != len(tc.want) {
				t.Errorf("full: Count %d, want %d", full.Count, len(tc.want))
			}
		})
	}
}

// TestVerifyRecordsStat: a file rewritten with the same bytes is read
// once; its new stat data is recorded, so the next Verify trusts it.
func TestVerifyRecordsStat(t *testing.T) {
	root, s := scanned(t)
	if err := rewrite(root, "a.txt", "alpha\n"); err != nil {
		t.Fatal(err)
	}
	if v, _ := Verify(root, s, false); v.Rehashed != 1 || !v.Changed {
		t.Fatalf("first: %+v", v)
	}
	if v, _ := Verify(root, s, false); v.Rehashed != 0 || v.Changed {
		t.Fatalf("second: %+v", v)
	}
}

func TestSaveLoad(t *testing.T) {
	root, s := scanned(t)
	name := filepath.Join(t.TempDir(), "manifest.gob")
	if err := s.Save(name); err != nil {
		t.Fatal(err)
	}
	l, err := Load(name)
	if err != nil {
		t.Fatal(err)
	}
	if v, err := Verify(root, l, true); err != nil || v.Count != 0 {
		t.Fatalf("loaded state does not verify: %v %+v", err, v)
	}
	if _, err := Load(filepath.Join(t.TempDir(), "none")); err == nil {
		t.Error("Load of a missing file: no error")
	}
}

// TestRepair damages a tree every way at once and repairs it from a
// pristine copy; without a source Repair refuses.
func TestRepair(t *testing.T) {
	root, s := scanned(t)
	pristine := t.TempDir()
	writeTree(t, pristine)
	rewrite(root, "a.txt", "ALPHA\n")
	os.Chmod(filepath.Join(root, "run.sh"), 0o600)
	os.RemoveAll(filepath.Join(root, "d"))
	os.Remove(filepath.Join(root, "link"))
	os.Mkdir(filepath.Join(root, "link"), 0o755)
	os.MkdirAll(filepath.Join(root, "extra/deep"), 0o755)
	if err := Repair(root, s, nil); err == nil {
		t.Fatal("Repair without a source: no error")
	}
	if err := Repair(root, s, dirSource(pristine)); err != nil {
		t.Fatal(err)
	}
	if v, err := Verify(root, s, true); err != nil || v.Count != 0 {
		t.Fatalf("after Repair: %v %+v", err, v)
	}
}
