package stateignore

import (
	"context"
	"testing"

	"github.com/turnback/turnback/manifest"
)

// TestRulesChanged: an ignore file added, changed or removed in a
// directory of dirty is a change; one elsewhere, or any other file,
// is not.
func TestRulesChanged(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	loader := manifest.NewStoreLoader(s)
	base := stored(t, s, map[string]string{"a/.gitignore": "x\n", "a/f": "1", "b/g": "2"})
	for _, c := range []struct {
		name  string
		files map[string]string
		dirty map[string]bool
		want  bool
	}{
		{"same", map[string]string{"a/.gitignore": "x\n", "a/f": "1", "b/g": "2"}, map[string]bool{"": true, "a": true, "b": true}, false},
		{"other file", map[string]string{"a/.gitignore": "x\n", "a/f": "9", "b/g": "2"}, map[string]bool{"": true, "a": true}, false},
		{"changed", map[string]string{"a/.gitignore": "y\n", "a/f": "1", "b/g": "2"}, map[string]bool{"": true, "a": true}, true},
		{"changed, not dirty", map[string]string{"a/.gitignore": "y\n", "a/f": "1", "b/g": "2"}, map[string]bool{"": true, "b": true}, false},
		{"removed", map[string]string{"a/f": "1", "b/g": "2"}, map[string]bool{"a": true}, true},
		{"added", map[string]string{"a/.gitignore": "x\n", "a/f": "1", "b/g": "2", "b/.turnbackignore": "z\n"}, map[string]bool{"b": true}, true},
		{"added at the top", map[string]string{".ignore": "z\n", "a/.gitignore": "x\n", "a/f": "1", "b/g": "2"}, map[string]bool{"": true}, true},
		{"directory gone", map[string]string{"b/g": "2"}, map[string]bool{"a": true}, true},
		{"directory new", map[string]string{"a/.gitignore": "x\n", "a/f": "1", "b/g": "2", "c/h": "3"}, map[string]bool{"c": true}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			now := stored(t, s, c.files)
			got, err := RulesChanged(ctx, loader, base, now, c.dirty)
			if err != nil {
				t.Fatal(err)
			}
			if got != c.want {
				t.Errorf("RulesChanged = %v, want %v", got, c.want)
			}
		})
	}
}
