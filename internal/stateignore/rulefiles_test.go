package stateignore

import (
	"context"
	"testing"

	"github.com/turnback/turnback/internal/model"
	"github.com/turnback/turnback/manifest"
)

// TestIgnoredRuleFiles: the ignore files a state's capture skipped but
// applied (its record's RuleFiles) count as the tree's own: at the top,
// nested, in the order of ignore.FileNames. Where the tree holds the
// file, its own copy counts. A record without them (legacy, or not kept) applies none.
func TestIgnoredRuleFiles(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	loader := manifest.NewStoreLoader(s)
	root := stored(t, s, map[string]string{
		".gitignore": ".ignore\n", "a": "a", "sub/.gitignore": "*.log\n", "sub/f": "f", "held/.turnbackignore": "x\n",
	})
	skip := &model.SkipInfo{RuleFiles: map[string][]byte{
		".ignore":              []byte("secret\n/top-only\n"),
		"sub/.ignore":          []byte("!keep.log\nhidden/\n"),
		"sub/.turnbackignore":  []byte("keep.log\n"),
		"held/.turnbackignore": []byte("y\n"), // the tree holds it: its own counts
	}}
	tests := []struct {
		skip  *model.SkipInfo
		rel   string
		isDir bool
		want  bool
	}{
		{skip, "secret", false, true},
		{skip, "sub/secret", false, true},
		{skip, "top-only", false, true},
		{skip, "sub/top-only", false, false},
		{skip, "a", false, false},
		{skip, "sub/x.log", false, true},
		{skip, "sub/keep.log", false, true}, // .turnbackignore comes after .ignore
		{skip, "sub/hidden/f", false, true},
		{skip, "held/x", false, true},
		{skip, "held/y", false, false},
		{nil, "secret", false, false},
		{&model.SkipInfo{}, "secret", false, false},
	}
	for _, tt := range tests {
		g := New(loader, s, root, tt.skip)
		got, err := g.Ignored(ctx, tt.rel, tt.isDir)
		if err != nil || got != tt.want {
			t.Errorf("skip %v: Ignored(%q) = %v, %v; want %v", tt.skip != nil, tt.rel, got, err, tt.want)
		}
	}
}
