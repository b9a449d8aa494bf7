//go:build linux && (amd64 || arm64)

package walker

import (
	"testing"

	"github.com/turnback/turnback/manifest/treetest"
)

// TestIndexAppearedWalksAgain: Base was captured in a folder that was no
// git repository; a "git init" and "git add -f" since make node_modules
// tracked, with no event in it. Base's index stamps are empty (there
// was no index to stamp), so they look current: an incremental capture,
// and one reading the top by name, took node_modules as skipped still.
// A repository that appeared is an index Base was not made under.
func TestIndexAppearedWalksAgain(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	files := map[string]string{"node_modules/p/x.js": "x"}
	for _, n := range []string{"a.txt", "b.txt", "c.txt", "d.txt", "e.txt"} {
		files[n] = n
	}
	treetest.PutAll(t, dir, files)
	s := newStore(t)
	idx := &GitIndexes{}
	never := func(string) bool { return false }
	base := snap(t, dir, s, Options{Index: idx})
	if has(pathsOf(flatten(t, s, base.Root)), "node_modules") {
		t.Fatal("node_modules captured")
	}
	git(t, dir, "init", "-q")
	git(t, dir, "add", "-f", "node_modules/p/x.js")
	for _, tt := range []struct {
		name string
		opts Options
	}{
		{"incremental", Options{Index: idx, Base: base.Root, Dirty: never}},
		{"by name", byName(Options{Index: idx}, base.Root, []string{"a.txt"})},
	} {
		res := snap(t, dir, s, tt.opts)
		if !has(pathsOf(flatten(t, s, res.Root)), "node_modules/p/x.js") {
			t.Errorf("%s: node_modules/p/x.js, tracked since the base, not captured", tt.name)
		}
	}
}
