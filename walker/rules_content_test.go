//go:build unix

package walker

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/turnback/turnback/manifest/treetest"
)

// TestSkippedRulesContent: Result.Skipped gives the content of each
// ignore file the capture skipped but applied, up to MaxRulesContent;
// other skipped files and directories have none. An incremental capture
// gives Base's for the directories it reused.
func TestSkippedRulesContent(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	big := strings.Repeat("#\n", MaxRulesContent/2+1)
	treetest.PutAll(t, dir, map[string]string{
		".gitignore":           ".ignore\n.turnbackignore\nnode_modules/\n",
		".ignore":              "secret\n",
		"secret":               "s",
		"a/.ignore":            "x\n",
		"a/x":                  "x",
		"a/f":                  "f",
		"b/.turnbackignore":    big,
		"b/g":                  "g",
		"node_modules/.ignore": "y\n",
	})
	s := newStore(t)
	idx := &GitIndexes{}
	list := func(r *Result) []string {
		var out []string
		for _, ig := range r.Skipped {
			out = append(out, fmt.Sprintf("%s|%q", ig.Path, ig.Content))
		}
		return out
	}
	want := []string{`.ignore|"secret\n"`, `a/.ignore|"x\n"`, `a/x|""`, `b/.turnbackignore|""`, `node_modules|""`, `secret|""`}
	full := snap(t, dir, s, Options{Index: idx})
	if got := list(full); !slices.Equal(got, want) {
		t.Fatalf("full capture skipped %q, want %q", got, want)
	}
	treetest.PutAll(t, dir, map[string]string{"b/g": "2"})
	inc := snap(t, dir, s, Options{Index: idx, Base: full.Root, Dirty: func(rel string) bool { return rel == "b" }})
	if inc.Stats.DirsReused == 0 {
		t.Fatal("the incremental capture reused nothing")
	}
	if got := list(inc); !slices.Equal(got, want) {
		t.Errorf("incremental capture skipped %q, want %q", got, want)
	}
}

// TestKeepRules: past MaxRulesTotal bytes of content, taken by path,
// an entry whose content no longer fits loses it; a smaller one after
// it that fits keeps its own.
func TestKeepRules(t *testing.T) {
	big := make([]byte, MaxRulesContent)
	var skipped []Ignored
	for i := 0; i < MaxRulesTotal/MaxRulesContent; i++ {
		skipped = append(skipped, Ignored{Path: fmt.Sprintf("d%02d/.ignore", i), Content: big})
	}
	skipped = append(skipped, Ignored{Path: "e/.ignore", Content: big}, Ignored{Path: "f/.ignore", Content: []byte{}}, Ignored{Path: "g"})
	keepRules(skipped)
	for i, ig := range skipped {
		want := i < MaxRulesTotal/MaxRulesContent || ig.Path == "f/.ignore"
		if (ig.Content != nil) != want {
			t.Errorf("%s keeps content: %v, want %v", ig.Path, ig.Content != nil, want)
		}
	}
}
