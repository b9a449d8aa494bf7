package treepath

import (
	"reflect"
	"testing"
)

func TestNames(t *testing.T) {
	tests := []struct {
		name  string
		paths []string
		want  map[string][]string
	}{
		{"none", nil, map[string][]string{"": {}}},
		{"top file", []string{"f"}, map[string][]string{"": {"f"}}},
		{"deep", []string{"a/b/c", "a/d", "e"}, map[string][]string{
			"": {"a", "e"}, "a": {"b", "d"}, "a/b": {"c"},
		}},
		{"siblings", []string{"x/z", "x/y", "x/y2/w", "x/y2/v"}, map[string][]string{
			"": {"x"}, "x": {"y", "y2", "z"}, "x/y2": {"v", "w"},
		}},
		// A path that is also above another is read whole.
		{"path above path", []string{"a", "a/b/c"}, map[string][]string{
			"": {"a"}, "a/b": {"c"},
		}},
		{"repeats", []string{"a/b", "a/b"}, map[string][]string{"": {"a"}, "a": {"b"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Names(tt.paths)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Names(%q) = %q, want %q", tt.paths, got, tt.want)
			}
			// Every directory Dirs reads is here, unless it is a path.
			given := map[string]bool{}
			for _, p := range tt.paths {
				given[p] = true
			}
			for d := range Dirs(tt.paths) {
				if _, ok := got[d]; ok == given[d] {
					t.Errorf("Names(%q): directory %q present %v, a path %v", tt.paths, d, ok, given[d])
				}
			}
		})
	}
}
