package walker

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// TestListingKeepsArraysBalanced lists 100 directories one after the
// other, each with a scratch given back at once, as a capture does. The
// names arrays must come from the lists and go back to them: a listing
// appended to a nil slice gave the lists one more array per directory,
// each holding its directory's names until the capture ended.
func TestListingKeepsArraysBalanced(t *testing.T) {
	top := t.TempDir()
	// Up to 20 names, and 130 in every 50th: a listing that outgrows
	// the array it started with.
	names := func(i int) int {
		if i%50 == 49 {
			return 130
		}
		return 1 + i%20
	}
	const dirs = 100
	for i := range dirs {
		d := filepath.Join(top, fmt.Sprintf("d%03d", i))
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
		for j := range names(i) {
			if err := os.Symlink("t", filepath.Join(d, fmt.Sprintf("l%02d", j))); err != nil {
				t.Fatal(err)
			}
		}
	}
	root, err := os.OpenRoot(top)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	rd, err := openRootDir(root)
	if err != nil {
		t.Fatal(err)
	}
	defer rd.close()
	lists := new(arrays)
	for i := range dirs {
		name := fmt.Sprintf("d%03d", i)
		d, err := rd.openDir(name)
		if err != nil {
			t.Fatal(err)
		}
		sc := getScratch(lists)
		ents, err := d.list(sc, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(ents) != names(i) {
			t.Fatalf("%s: %d entries, want %d", name, len(ents), names(i))
		}
		sc.release()
		d.close()
	}
	held := 0
	for _, f := range lists.strings.free {
		held += len(f)
	}
	if held > 8 {
		t.Errorf("the names lists hold %d arrays after %d directories listed one at a time, want a few", held, dirs)
	}
}
