//go:build unix

package walker

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/manifest/treetest"
)

// TestSkippedRulesContent: Result.Skipped names the blob of each ignore
// file the capture skipped but applied, whatever its size (up to the
// 4 MiB the capture reads of it); other skipped files and directories
// name none. An incremental capture gives Base's for the directories
// it reused.
func TestSkippedRulesContent(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	big := strings.Repeat("#\n", 64<<10)         // over the 64 KiB once kept
	huge := "y\n" + strings.Repeat("#\n", 2<<20) // past the 4 MiB read
	treetest.PutAll(t, dir, map[string]string{
		".gitignore":           ".ignore\n.turnbackignore\nnode_modules/\n",
		".ignore":              "secret\n",
		"secret":               "s",
		"a/.ignore":            "x\n",
		"a/x":                  "x",
		"a/f":                  "f",
		"b/.turnbackignore":    big,
		"b/g":                  "g",
		"c/.ignore":            huge,
		"c/y":                  "y",
		"node_modules/.ignore": "y\n",
	})
	s := newStore(t)
	idx := &GitIndexes{}
	list := func(r *Result) []string {
		var out []string
		for _, ig := range r.Skipped {
			content := "-"
			if ig.Rules != "" {
				h, err := cas.ParseHash(ig.Rules)
				if err != nil {
					t.Fatalf("%s: rules %q: %v", ig.Path, ig.Rules, err)
				}
				data := string(readContent(t, s, h))
				switch data {
				case big:
					content = "big"
				case huge[:4<<20]:
					content = "huge's first 4 MiB"
				default:
					content = fmt.Sprintf("%q", data)
				}
			}
			out = append(out, ig.Path+"|"+content)
		}
		return out
	}
	want := []string{`.ignore|"secret\n"`, `a/.ignore|"x\n"`, `a/x|-`, `b/.turnbackignore|big`, `c/.ignore|huge's first 4 MiB`, `c/y|-`, `node_modules|-`, `secret|-`}
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
