package manifest

import (
	"slices"
	"strings"
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

func TestPathOps(t *testing.T) {
	tests := []struct {
		path, dir, name, display string
	}{
		{"", "", "", "."},
		{"a", "", "a", "a"},
		{"a/b", "a", "b", "a/b"},
		{"a/b/c.txt", "a/b", "c.txt", "a/b/c.txt"},
		{".hidden/x", ".hidden", "x", ".hidden/x"},
	}
	for _, tt := range tests {
		dir, name := SplitPath(tt.path)
		if dir != tt.dir || name != tt.name {
			t.Errorf("SplitPath(%q) = %q, %q, want %q, %q", tt.path, dir, name, tt.dir, tt.name)
		}
		if got := ParentPath(tt.path); got != tt.dir {
			t.Errorf("ParentPath(%q) = %q, want %q", tt.path, got, tt.dir)
		}
		if got := JoinPath(tt.dir, tt.name); got != tt.path {
			t.Errorf("JoinPath(%q, %q) = %q, want %q", tt.dir, tt.name, got, tt.path)
		}
		if got := DisplayPath(tt.path); got != tt.display {
			t.Errorf("DisplayPath(%q) = %q, want %q", tt.path, got, tt.display)
		}
	}
}

// FuzzPaths checks that SplitPath and JoinPath are inverses (for any
// string without a leading slash, valid path or not), that a name holds
// no slash, and that a parent sorts before what it holds.
func FuzzPaths(f *testing.F) {
	for _, p := range []string{"", "a", "a/b", "a/b/c", "a//b", "/a", "a/", "a.txt/b"} {
		f.Add(p)
	}
	f.Fuzz(func(t *testing.T, p string) {
		dir, name := SplitPath(p)
		if !strings.HasPrefix(p, "/") && JoinPath(dir, name) != p {
			t.Fatalf("JoinPath(SplitPath(%q)) = %q", p, JoinPath(dir, name))
		}
		if strings.Contains(name, "/") {
			t.Fatalf("SplitPath(%q) name %q holds a slash", p, name)
		}
		if ParentPath(p) != dir {
			t.Fatalf("ParentPath(%q) = %q, SplitPath dir %q", p, ParentPath(p), dir)
		}
		if dir != "" && name != "" && ComparePaths(dir, p) >= 0 {
			t.Fatalf("ComparePaths(%q, %q) = %d, want < 0", dir, p, ComparePaths(dir, p))
		}
		if (DisplayPath(p) == ".") != (p == "" || p == ".") {
			t.Fatalf("DisplayPath(%q) = %q", p, DisplayPath(p))
		}
	})
}
