//go:build linux && (amd64 || arm64)

package walker

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/turnback/turnback/internal/testtier"
)

// TestCaptureArraysReused: captures with the stat cache of a tree whose
// directories differ in size, unchanged and then changed in large and
// small directories, give the trees of a full walk (checkArrays zeroes
// an array given back, so a directory still using one would differ).
// The fast tier's tree has the same ten large directories and fewer
// small ones: 5,600 files, not 11,600.
func TestCaptureArraysReused(t *testing.T) {
	ndirs := 1300
	if testtier.Short() {
		ndirs = 300
	}
	step := ndirs / 10 // the large directories are d0007, then every step
	dir := t.TempDir()
	genShapedTree(t, dir, ndirs)
	ageTree(t, dir)
	time.Sleep(settle)
	s := newStore(t)
	cache := NewStatCache(s.Backend())
	r1 := snap(t, dir, s, Options{Cache: cache})
	r2 := snap(t, dir, s, Options{Cache: cache, Previous: r1.Root})
	if r2.Root != r1.Root || r2.Stats.HashedFiles != 0 {
		t.Fatalf("no change: root %s (want %s), %d files read", r2.Root.Short(), r1.Root.Short(), r2.Stats.HashedFiles)
	}
	sameSnapshot(t, "no change", flatten(t, s, r2.Root), fullWalk(t, dir))
	// Changes in the largest directory and small ones, new names in
	// some: their records are rewritten, their listings read again.
	dirs := map[string]string{} // by name
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if d != nil && d.IsDir() {
			dirs[d.Name()] = p
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	big1, mid := fmt.Sprintf("d%04d", step+7), fmt.Sprintf("d%04d", ndirs*5/13)
	for _, p := range []string{"d0007/f000.go", "d0007/new.go", big1 + "/f003.go", "d0001/f000.go", mid + "/new/x.go"} {
		d, name, _ := strings.Cut(p, "/")
		p := filepath.Join(dirs[d], filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("changed "+p), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r3 := snap(t, dir, s, Options{Cache: cache, Previous: r2.Root})
	if r3.Stats.HashedFiles != 5 {
		t.Errorf("changed: %d files read, want 5", r3.Stats.HashedFiles)
	}
	sameSnapshot(t, "changed", flatten(t, s, r3.Root), fullWalk(t, dir))
	time.Sleep(settle)
	r4 := snap(t, dir, s, Options{Cache: cache, Previous: r3.Root})
	sameSnapshot(t, "changed, then none", flatten(t, s, r4.Root), fullWalk(t, dir))
}
