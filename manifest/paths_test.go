package manifest

import (
	"slices"
	"testing"
)

func TestComparePaths(t *testing.T) {
	tests := []struct {
		a, b string
		want int // sign
	}{
		{"a", "a", 0},
		{"a", "a/b", -1},
		{"a/b", "a.txt", -1}, // by component: "a" < "a.txt"
		{"a.txt", "a/b", 1},
		{"a/b/c", "a/b", 1},
		{"b", "a/z", 1},
		{"a/b", "a/c", -1},
	}
	for _, tt := range tests {
		got := ComparePaths(tt.a, tt.b)
		if sign(got) != tt.want {
			t.Errorf("ComparePaths(%q, %q) = %d, want sign %d", tt.a, tt.b, got, tt.want)
		}
	}
	ps := []string{"a.txt", "a/b/c", "b", "a", "a/b"}
	slices.SortFunc(ps, ComparePaths)
	if want := []string{"a", "a/b", "a/b/c", "a.txt", "b"}; !slices.Equal(ps, want) {
		t.Errorf("sorted %q, want %q", ps, want)
	}
}

func sign(n int) int {
	switch {
	case n < 0:
		return -1
	case n > 0:
		return 1
	}
	return 0
}
