//go:build linux

package watch

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestReadDir: readDir's subdirectories and regular-file answers are
// os.ReadDir's, for directories of every kind of entry, ignore files
// as files, directories and symlinks, and listings longer than one
// getdents buffer.
func TestReadDir(t *testing.T) {
	for _, tc := range []struct {
		name  string
		setup func(dir string)
	}{
		{name: "empty", setup: func(string) {}},
		{name: "mixed", setup: func(dir string) {
			put(t, dir, "sub/f", "x")
			put(t, dir, "b.txt", "x")
			put(t, dir, ".gitignore", "x\n")
			put(t, dir, ".turnbackignore/f", "x") // a directory by that name
			must(t, os.Symlink("sub", filepath.Join(dir, ".ignore")))
			must(t, os.Symlink("sub", filepath.Join(dir, "linkdir")))
			must(t, os.Mkdir(filepath.Join(dir, "émpty dir"), 0o755))
		}},
		{name: "longer than one buffer", setup: func(dir string) {
			// 1,500 entries of 56 bytes: 84 KB, over two getdents
			// buffers of 32 KB (direntBufs).
			for i := range 1500 {
				name := fmt.Sprintf("entry-with-a-rather-long-name-%04d", i)
				if i%3 == 0 {
					must(t, os.Mkdir(filepath.Join(dir, name), 0o755))
				} else {
					put(t, dir, name, "x")
				}
			}
			put(t, dir, ".ignore", "x\n")
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			tc.setup(dir)
			ents, err := os.ReadDir(dir)
			must(t, err)
			var wantDirs []string
			for _, e := range ents {
				if e.IsDir() {
					wantDirs = append(wantDirs, e.Name())
				}
			}
			dirs, regular, err := readDir(dir)
			must(t, err)
			if !slices.Equal(dirs, wantDirs) {
				t.Errorf("dirs %q, want %q", dirs, wantDirs)
			}
			for _, name := range []string{".gitignore", ".ignore", ".turnbackignore", "b.txt", "sub", "linkdir", "entry-with-a-rather-long-name-0001", "absent"} {
				fi, err := os.Lstat(filepath.Join(dir, name))
				want := err == nil && fi.Mode().IsRegular()
				if got := regular(name); got != want {
					t.Errorf("regular(%q) = %v, want %v", name, got, want)
				}
			}
		})
	}
	if _, _, err := readDir(filepath.Join(t.TempDir(), "absent")); !os.IsNotExist(err) {
		t.Errorf("readDir of a missing directory: %v, want not exist", err)
	}
}
