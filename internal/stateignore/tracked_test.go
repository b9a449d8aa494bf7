package stateignore

import (
	"context"
	"strings"
	"testing"

	"github.com/turnback/turnback/internal/model"
	"github.com/turnback/turnback/manifest"
)

// TestIgnoredTrackedListed: a path the tree lacks that the record lists
// as tracked (SkipInfo.TrackedIgnored) is not ignored, nor is what lies
// in a directory listed, nor a directory holding a path listed; a
// path not listed keeps the patterns' word, also beside one listed, a
// directory where a file is listed, and a file where a directory is.
// Where the rules are unknown, a path listed is not ignored either.
func TestIgnoredTrackedListed(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	loader := manifest.NewStoreLoader(s)
	root := stored(t, s, map[string]string{".gitignore": "*.cfg\nbuild\n", "b": "b"})
	list := []string{"src/x.cfg", "a.cfg", "build/", "node_modules/m.cfg", "", "/", "x//"} // unsorted, with junk
	listed := &model.SkipInfo{TrackedIgnored: list}
	unknown := &model.SkipInfo{TrackedIgnored: list, RulesUnknown: []string{""}}
	tests := []struct {
		skip  *model.SkipInfo
		rel   string
		isDir bool
		want  bool
	}{
		{listed, "a.cfg", false, false},
		{listed, "c.cfg", false, true},
		{listed, "a.cfg", true, true}, // a directory named so: not what git tracked
		{listed, "a.cfg/x", false, true},
		{listed, "build", true, false},
		{listed, "build/other.o", false, false}, // all below build was absent
		{listed, "build/sub", true, false},
		{listed, "build", false, true}, // a file named build, ignored
		{listed, "src", true, false},
		{listed, "src/x.cfg", false, false},
		{listed, "src/y.cfg", false, true},
		{listed, "node_modules", true, false},
		{listed, "node_modules/m.cfg", false, false},
		{listed, "node_modules/n.js", false, false}, // its directory was tracked, n.js not ignored
		{listed, "x", true, false},
		{&model.SkipInfo{}, "a.cfg", false, true},
		{&model.SkipInfo{}, "node_modules", true, true},
		{nil, "a.cfg", false, true},
		{unknown, "a.cfg", false, false},
		{unknown, "q.txt", false, true},
	}
	for _, tt := range tests {
		got, err := New(loader, s, root, tt.skip).Ignored(ctx, tt.rel, tt.isDir)
		if err != nil || got != tt.want {
			t.Errorf("list %q: Ignored(%q, dir %v) = %v, %v; want %v", tt.skip, tt.rel, tt.isDir, got, err, tt.want)
		}
	}
}

// FuzzListed: any list a record holds (a pulled one included) and any
// path: listed never panics, finds every file listed, and every path
// below a directory listed.
func FuzzListed(f *testing.F) {
	f.Add("a.cfg\nbuild/\nsrc/x.cfg", "build/x", false)
	f.Add("\n/\n//", "", true)
	f.Add("a/b/", "a", true)
	f.Fuzz(func(t *testing.T, list, rel string, isDir bool) {
		paths := strings.Split(list, "\n")
		g := New(nil, nil, [32]byte{}, &model.SkipInfo{TrackedIgnored: paths})
		got := g.listed(rel, isDir)
		if rel == "" {
			if got {
				t.Fatalf("the top listed in %q", paths)
			}
			return
		}
		for _, p := range paths {
			file := p == rel && !isDir && !strings.HasSuffix(p, "/")
			below := strings.HasSuffix(p, "/") && strings.HasPrefix(rel+"/", p) && (isDir || rel+"/" != p)
			if (file || below) && !got {
				t.Fatalf("listed(%q, %v) = false in %q", rel, isDir, paths)
			}
		}
	})
}
