//go:build unix

package walker

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/turnback/turnback/manifest/treetest"
)

// TestTrackedSplitIndex: under git's split index, what git tracks is
// in the shared index and is captured, node_modules and all. Without
// its shared index the index is unreadable: a problem is reported and
// nothing counts as tracked.
func TestTrackedSplitIndex(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	treetest.PutAll(t, dir, map[string]string{
		".gitignore":          "dist/\n",
		"node_modules/x.js":   "committed dependency",
		"dist/app.js":         "force-added",
		"node_modules/new.js": "added after the split",
	})
	git(t, dir, "init", "-q")
	git(t, dir, "config", "core.splitIndex", "true")
	git(t, dir, "config", "splitIndex.maxPercentChange", "100")
	git(t, dir, "add", ".gitignore", "node_modules/x.js")
	git(t, dir, "add", "-f", "dist/app.js")
	git(t, dir, "update-index", "--split-index")
	git(t, dir, "add", "node_modules/new.js")

	s := newStore(t)
	res := snap(t, dir, s, Options{})
	got := pathsOf(flatten(t, s, res.Root))
	for _, p := range []string{"node_modules/x.js", "node_modules/new.js", "dist/app.js"} {
		if !has(got, p) {
			t.Errorf("%s not captured", p)
		}
	}
	if len(res.Stats.Problems) != 0 {
		t.Errorf("problems %+v", res.Stats.Problems)
	}

	shared, err := filepath.Glob(filepath.Join(dir, ".git", "sharedindex.*"))
	if err != nil || len(shared) == 0 {
		t.Fatalf("shared indexes %q: %v", shared, err)
	}
	for _, p := range shared {
		if err := os.Remove(p); err != nil {
			t.Fatal(err)
		}
	}
	s = newStore(t)
	res = snap(t, dir, s, Options{})
	if got := pathsOf(flatten(t, s, res.Root)); has(got, "node_modules/x.js") || has(got, "dist/app.js") {
		t.Errorf("tracked without an index: %q", got)
	}
	if len(res.Stats.Problems) != 1 || res.Stats.Problems[0].Path != ".git" ||
		!strings.Contains(res.Stats.Problems[0].Err, "git index unreadable") {
		t.Errorf("problems %+v", res.Stats.Problems)
	}
}
