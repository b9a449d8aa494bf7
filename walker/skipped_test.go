//go:build unix

package walker

import (
	"fmt"
	"slices"
	"testing"

	"github.com/turnback/turnback/manifest/treetest"
)

// TestSkippedCarriedOver: an incremental capture lists in Result.Skipped
// what it skipped in the directories it read and, for those it reused,
// what Base's capture skipped there (Options.Index remembers it); the
// list equals a full capture's. Without reuse of the root it is carried
// whole.
func TestSkippedCarriedOver(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	treetest.PutAll(t, dir, map[string]string{
		"a/cache/CACHEDIR.TAG": cacheTag,
		"a/cache/x":            "x",
		"a/keep.txt":           "k",
		"b/node_modules/m.js":  "m",
		"b/main.js":            "1",
		"c/.gitignore":         "*.log\n",
		"c/run.log":            "log",
	})
	s := newStore(t)
	idx := &GitIndexes{}
	full := snap(t, dir, s, Options{Index: idx})
	list := func(r *Result) []string {
		var out []string
		for _, ig := range r.Skipped {
			out = append(out, fmt.Sprintf("%s|%s|%s", ig.Path, ig.Rule, ig.Evidence))
		}
		return out
	}
	want := []string{"a/cache|evidence|a/cache/CACHEDIR.TAG", "b/node_modules|name|", "c/run.log|file|"}
	if got := list(full); !slices.Equal(got, want) {
		t.Fatalf("full capture skipped %q, want %q", got, want)
	}
	treetest.PutAll(t, dir, map[string]string{"b/main.js": "2"})
	dirty := func(rel string) bool { return rel == "" || rel == "b" }
	inc := snap(t, dir, s, Options{Index: idx, Base: full.Root, Dirty: dirty})
	if inc.Stats.DirsReused == 0 {
		t.Fatal("the incremental capture reused nothing")
	}
	if got := list(inc); !slices.Equal(got, want) {
		t.Errorf("incremental capture skipped %q, want %q", got, want)
	}
	same := snap(t, dir, s, Options{Index: idx, Base: inc.Root, Dirty: func(string) bool { return false }})
	if got := list(same); !slices.Equal(got, want) {
		t.Errorf("capture reusing the root skipped %q, want %q", got, want)
	}
}
