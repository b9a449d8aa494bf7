//go:build linux && (amd64 || arm64)

package walker

import (
	"os"
	"path/filepath"
	"testing"
)

// TestNamesUnsearchableListed: a directory read by name that can be
// listed but not searched (mode 0600) is unreadable, as a full walk
// finds it, though none of the names read by name is still listed
// (the turn deleted its path there, and d/ holds no ignore file), so
// that no lstat meets EACCES. As root it runs again as nobody (root
// searches any directory).
func TestNamesUnsearchableListed(t *testing.T) {
	if rerunUnprivileged(t) {
		return
	}
	dir := namesTree(t)
	removeAll(t, dir, "d/skip.log") // an ignored name is listed and read
	s := newStore(t)
	opts := Options{Index: &GitIndexes{}}
	base := snap(t, dir, s, opts)
	removeAll(t, dir, "d/f1.txt") // the turn's path, deleted
	d := filepath.Join(dir, "d")
	if err := os.Chmod(d, 0o600); err != nil {
		t.Fatal(err)
	}
	defer os.Chmod(d, 0o755)
	full := opts
	full.Previous = base.Root
	want := snap(t, dir, s, full)
	got := snap(t, dir, s, byName(opts, base.Root, []string{"d/f1.txt"}))
	if got.Root != want.Root || len(got.Stats.Problems) != len(want.Stats.Problems) {
		t.Errorf("by name root %s problems %v, full walk %s problems %v", got.Root.Short(), got.Stats.Problems, want.Root.Short(), want.Stats.Problems)
	}
}
