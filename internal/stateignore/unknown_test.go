package stateignore

import (
	"context"
	"testing"

	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/internal/model"
	"github.com/turnback/turnback/manifest"
)

// TestUnknownRules: the rules of a skipped ignore file come from the
// blob its record names. Where the record says a directory's rules are
// unknown (RulesUnknown), or the blob is gone or its hash does not
// parse, a path below that directory the tree lacks counts as ignored;
// one the tree holds does not (the capture took it). Other directories
// are judged as usual.
func TestUnknownRules(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	loader := manifest.NewStoreLoader(s)
	root := stored(t, s, map[string]string{
		".gitignore": ".ignore\n", "a": "a", "sub/f": "f", "sub/deep/g": "g", "other/h": "h",
	})
	w := s.NewWriter()
	kept, err := w.PutBlob(ctx, []byte("secret\n"))
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	gone := cas.Sum([]byte("never stored\n")).String()
	cases := []struct {
		name string
		skip *model.SkipInfo
		want map[string]bool
	}{
		{"blob", &model.SkipInfo{RuleBlobs: map[string]string{".ignore": kept.String()}}, map[string]bool{
			"secret": true, "sub/secret": true, "new": false, "sub/new": false, "a": false, "sub/f": false,
		}},
		{"unknown below sub", &model.SkipInfo{RuleBlobs: map[string]string{".ignore": kept.String()}, RulesUnknown: []string{"sub"}}, map[string]bool{
			"secret": true, "new": false, "sub/new": true, "sub/deep/new": true, "sub/f": false, "sub/deep/g": false, "other/new": false,
		}},
		{"blob gone", &model.SkipInfo{RuleBlobs: map[string]string{"sub/.ignore": gone}}, map[string]bool{
			"new": false, "sub/new": true, "sub/deep": false, "sub/deep/new": true, "sub/f": false, "other/new": false,
		}},
		{"bad hash", &model.SkipInfo{RuleBlobs: map[string]string{".ignore": "not a hash"}}, map[string]bool{
			"new": true, "sub/new": true, "a": false, "other/h": false,
		}},
		{"legacy", nil, map[string]bool{"secret": false, "new": false}},
	}
	for _, c := range cases {
		g := New(loader, s, root, c.skip)
		for rel, want := range c.want {
			got, err := g.Ignored(ctx, rel, false)
			if err != nil || got != want {
				t.Errorf("%s: Ignored(%q) = %v, %v; want %v", c.name, rel, got, err, want)
			}
		}
	}
}
