//go:build unix

package walker

import (
	"testing"

	"github.com/turnback/turnback/manifest/treetest"
)

// TestIncrementalUncounted: with Uncounted, the directories Dirty
// leaves out are taken from Base unread and uncounted: the same root as
// a full capture, Stats counting what was read (each reused directory
// once, its own subdirectories not).
func TestIncrementalUncounted(t *testing.T) {
	dir := incTree(t)
	s := newStore(t)
	opts := Options{SizeLimit: 100}
	base := snap(t, dir, s, opts)
	treetest.MustWrite(t, dir, treetest.Tree{"a/b/g.txt": treetest.File("changed", 0o644)})
	full := snap(t, dir, s, opts)

	inc := opts
	inc.Base, inc.Dirty, inc.Uncounted = base.Root, dirtyOf("", "a", "a/b"), true
	res := snap(t, dir, s, inc)
	if res.Root != full.Root {
		t.Fatalf("uncounted root %s, full %s", res.Root.Short(), full.Root.Short())
	}
	// Read: the root (top.txt, .gitignore), a (f.txt), a/b (g.txt,
	// big.bin uncaptured, link). Reused, uncounted below: c and empty.
	if res.Stats.Files != 5 || res.Stats.Symlinks != 1 || res.Stats.DirsReused != 2 || res.Stats.Dirs != 5 {
		t.Errorf("uncounted stats: files %d symlinks %d dirs %d reused %d, want 5 1 5 2",
			res.Stats.Files, res.Stats.Symlinks, res.Stats.Dirs, res.Stats.DirsReused)
	}
	if len(res.Stats.Uncaptured) != 1 || res.Stats.Uncaptured[0].Path != "a/b/big.bin" {
		t.Errorf("uncounted uncaptured: %+v, want a/b/big.bin", res.Stats.Uncaptured)
	}
}
