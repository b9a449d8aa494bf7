//go:build linux && (amd64 || arm64)

package walker

import (
	"sort"
	"strings"
	"testing"
)

// TestExactNames: a directory is read by name only where an lstat finds
// the name stored. A hard link spelled with the case swapped stands in
// for a case-folding directory (the same file under both spellings).
func TestExactNames(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		files  []string
		links  [][2]string // from, to
		lookup []string
		want   bool
	}{
		{"case counts", []string{"a.txt"}, nil, []string{"a.txt", ".gitignore"}, true},
		{"both spellings, two files", []string{"a.txt", "A.TXT"}, nil, []string{"a.txt"}, true},
		{"folds case", []string{"a.txt"}, [][2]string{{"a.txt", "A.TXT"}}, []string{"a.txt"}, false},
		{"folds case, probed second", []string{"123", "b.txt"}, [][2]string{{"b.txt", "B.TXT"}}, []string{"123", "b.txt"}, false},
		{"nothing found", nil, nil, []string{"gone.txt", "é.txt"}, true},
		{"no name with a case", []string{"123", "4.5"}, nil, []string{"123", "4.5", "gone.txt"}, true},
		{"non-ASCII name found", []string{"é.txt", "a.txt"}, nil, []string{"a.txt", "é.txt"}, false},
		{"non-ASCII name absent", []string{"a.txt"}, nil, []string{"a.txt", "é.txt"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			for _, f := range tt.files {
				write(t, dir, f, "x")
			}
			for _, l := range tt.links {
				hardlink(t, dir, l[0], l[1])
			}
			d, err := openRootDir(openRoot(t, dir))
			if err != nil {
				t.Fatal(err)
			}
			defer d.close()
			names := append([]string(nil), tt.lookup...)
			sort.Strings(names)
			ents, err := d.list(nil, names)
			if err != nil {
				t.Fatal(err)
			}
			if got := d.exactNames(ents); got != tt.want {
				t.Errorf("exactNames = %v, want %v (entries %v)", got, tt.want, entNames(ents))
			}
		})
	}
}

func entNames(ents []dirEnt) string {
	var ns []string
	for _, e := range ents {
		ns = append(ns, e.name)
	}
	return strings.Join(ns, ",")
}
