package walker

import (
	"os"
	"testing"

	"github.com/turnback/turnback/walker/gitindex"
)

func TestSameIndexes(t *testing.T) {
	a1 := gitindex.Stamp{Path: "/w/.git/index", Size: 10, MTime: 1, Ino: 7}
	a2 := gitindex.Stamp{Path: "/w/.git/index", Size: 12, MTime: 2, Ino: 8}
	b1 := gitindex.Stamp{Path: "/w/n/.git/index", Size: 5, MTime: 1, Ino: 9}
	none := gitindex.Stamp{Path: "/w/m/.git/index"}
	tests := []struct {
		name             string
		judged, captured []gitindex.Stamp
		want             bool
	}{
		{"both empty", nil, nil, true},
		{"same", []gitindex.Stamp{a1, b1}, []gitindex.Stamp{b1, a1}, true},
		{"other version", []gitindex.Stamp{a1}, []gitindex.Stamp{a2}, false},
		{"an old one among the judged", []gitindex.Stamp{a1, a2}, []gitindex.Stamp{a2}, false},
		{"captured names another index only", []gitindex.Stamp{a1}, []gitindex.Stamp{b1}, true},
		{"judged when it had none", []gitindex.Stamp{none}, []gitindex.Stamp{{Path: none.Path, Size: 3, MTime: 4, Ino: 5}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := SameIndexes(tt.judged, tt.captured); got != tt.want {
				t.Fatalf("SameIndexes = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestIgnorerStampsOnce: a watcher's Ignorer loads the top of a folder
// that is no repository again after each Forget of it; the stamp of the
// index it lacks is kept once, not once per load.
func TestIgnorerStampsOnce(t *testing.T) {
	dir := t.TempDir()
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	g := NewIgnorer(root)
	for range 5 {
		g.Ignored("a", true)
		g.Forget("")
	}
	g.Ignored("a", true)
	if st := g.Stamps(); len(st) != 1 {
		t.Fatalf("stamps %v, want one", st)
	}
}
