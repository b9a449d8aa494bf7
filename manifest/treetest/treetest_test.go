package treetest

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func TestWriteReadRoundTrip(t *testing.T) {
	t.Parallel()
	want := Tree{
		"a.txt":         File("alpha\n", 0o644),
		"bin":           Dir(0o755),
		"bin/run":       File("#!/bin/sh\n", 0o755),
		"empty":         Dir(0o700),
		"link":          Symlink("a.txt"),
		"deep/x/y/z.md": File("", 0o600),
		"deep":          Dir(0o755),
		"deep/x":        Dir(0o755),
		"deep/x/y":      Dir(0o755),
	}
	if runtime.GOOS == "windows" {
		t.Skip("mode bits and symlinks differ on windows")
	}
	root := t.TempDir()
	MustWrite(t, root, want)
	Equal(t, "round trip", MustRead(t, root), want)
}

func TestDiff(t *testing.T) {
	t.Parallel()
	base := Tree{"a": File("1", 0o644), "d": Dir(0o755), "l": Symlink("a")}
	tests := []struct {
		name string
		got  Tree
		want []string
	}{
		{"equal", Tree{"a": File("1", 0o644), "d": Dir(0o755), "l": Symlink("a")}, nil},
		{"content", Tree{"a": File("2", 0o644), "d": Dir(0o755), "l": Symlink("a")},
			[]string{`a: got file -rw-r--r-- 1 bytes "2", want file -rw-r--r-- 1 bytes "1"`}},
		{"mode", Tree{"a": File("1", 0o600), "d": Dir(0o755), "l": Symlink("a")},
			[]string{`a: got file -rw------- 1 bytes "1", want file -rw-r--r-- 1 bytes "1"`}},
		{"missing and unexpected", Tree{"a": File("1", 0o644), "d": Dir(0o755), "m": Symlink("a")},
			[]string{`missing l (want symlink -> "a")`, `unexpected m (symlink -> "a")`}},
		{"kind", Tree{"a": Dir(0o644), "d": Dir(0o755), "l": Symlink("a")},
			[]string{`a: got dir -rw-r--r--, want file -rw-r--r-- 1 bytes "1"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Diff(tt.got, base)
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("Diff:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

func TestReadOptions(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	MustWrite(t, root, Tree{"keep": File("k", 0o640), "store/x": File("s", 0o644), "tmp.log": File("l", 0o644)})
	got := MustRead(t, root, Skip("store"), SkipFunc(func(rel string) bool {
		return strings.HasSuffix(rel, ".log")
	}), NoModes())
	Equal(t, "options", got, Tree{"keep": File("k", 0)})
}

func TestReadNamesVanishedRoot(t *testing.T) {
	t.Parallel()
	root := filepath.Join(t.TempDir(), "gone")
	_, err := Read(root)
	if err == nil || !strings.Contains(err.Error(), "gone") || !os.IsNotExist(unwrapAll(err)) {
		t.Fatalf("Read of a missing root: %v", err)
	}
}

func unwrapAll(err error) error {
	for {
		u, ok := err.(interface{ Unwrap() error })
		if !ok {
			return err
		}
		err = u.Unwrap()
	}
}

func TestMerge(t *testing.T) {
	t.Parallel()
	base := Tree{"a": File("1", 0o644), "d": Dir(0o755)}
	got := base.Merge(Tree{"a": File("2", 0o600), "d/b": Symlink("../a")})
	want := Tree{"a": File("2", 0o600), "d": Dir(0o755), "d/b": Symlink("../a")}
	if d := Diff(got, want); len(d) > 0 {
		t.Errorf("Merge: %q", d)
	}
	if base["a"] != File("1", 0o644) || len(base) != 2 {
		t.Errorf("Merge changed its receiver: %v", base)
	}
}

func TestPutKeepsMode(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	Put(t, root, "d/e/new", "one")
	MustWrite(t, root, Tree{"x": File("old", 0o700)})
	Put(t, root, "x", "two")
	Equal(t, "after Put", MustRead(t, root), Tree{"d": Dir(0o755), "d/e": Dir(0o755), "d/e/new": File("one", 0o644), "x": File("two", 0o700)})
}

func TestDiskUsageCountsFiles(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	empty := DiskUsage(t, root)
	Put(t, root, "big", strings.Repeat("x", 1<<20))
	if grew := DiskUsage(t, root) - empty; grew < 1<<20 {
		t.Errorf("DiskUsage grew by %d for a 1 MiB file", grew)
	}
}

func TestEdits(t *testing.T) {
	t.Parallel()
	tr := Tree{"a": File("1", 0o644), "d": Dir(0o755), "d/b": File("2", 0o600), "d/c": Symlink("b")}
	Equal(t, "With", tr.With(Tree{"a": {}, "e": File("3", 0o644)}), Tree{"d": Dir(0o755), "d/b": File("2", 0o600), "d/c": Symlink("b"), "e": File("3", 0o644)})
	Equal(t, "Without", tr.Without("d"), Tree{"a": File("1", 0o644)})
	Equal(t, "Under", tr.Under("d"), Tree{"d": Dir(0o755), "d/b": File("2", 0o600), "d/c": Symlink("b")})
	root := t.TempDir()
	MustWrite(t, filepath.Join(root, "src"), tr)
	if err := Copy(filepath.Join(root, "src"), filepath.Join(root, "dst")); err != nil {
		t.Fatal(err)
	}
	Equal(t, "Copy", MustRead(t, filepath.Join(root, "dst")), tr)
}
