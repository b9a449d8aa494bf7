//go:build unix

package walker

import (
	"testing"

	"github.com/turnback/turnback/manifest/treetest"
)

// TestLargeNewDirMarkedNew: the capture that first leaves a large new
// directory uncaptured marks it New, for the warning of snap and end;
// the captures after it list it again, not New.
func TestLargeNewDirMarkedNew(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	treetest.MustWrite(t, dir, treetest.Tree{"a.txt": treetest.File("a", 0o644)})
	s := newStore(t)
	empty := snap(t, dir, s, Options{})
	addFiles(t, dir, "assets", 250)
	first := snap(t, dir, s, Options{Previous: empty.Root})
	if u, ok := findUncaptured(first, "assets"); !ok || !u.New || u.Files != 250 {
		t.Errorf("first capture with assets: %+v, want it New with 250 files", first.Stats.Uncaptured)
	}
	again := snap(t, dir, s, Options{Previous: first.Root})
	if u, ok := findUncaptured(again, "assets"); !ok || u.New {
		t.Errorf("next capture: %+v, want assets listed, not New", again.Stats.Uncaptured)
	}
}
