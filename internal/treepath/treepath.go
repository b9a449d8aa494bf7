package treepath

import (
	"fmt"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/turnback/turnback/internal/model"
)

// ErrEmpty: an empty path given to a partial undo (an unset shell
// variable, most likely) names nothing; it never means "everything".
var ErrEmpty = fmt.Errorf(`%w: an empty path ("") names no file or directory; nothing was done`, model.ErrPath)

// Clean checks and normalises the paths of a partial undo: clean,
// relative, slash-separated; "." becomes "" (the whole tree). An empty
// path is an error.
func Clean(ps []string) ([]string, error) {
	out := make([]string, 0, len(ps))
	for _, p := range ps {
		if p == "" {
			return nil, ErrEmpty
		}
		q := path.Clean(p)
		if strings.ContainsRune(p, 0) || path.IsAbs(q) || q == ".." || strings.HasPrefix(q, "../") {
			return nil, fmt.Errorf("%w: %q is not inside the work tree", model.ErrPath, p)
		}
		if q == "." {
			q = ""
		}
		out = append(out, q)
	}
	return out, nil
}

// Under reports whether path p is spec or below it ("" is the whole
// tree).
func Under(p, spec string) bool {
	return spec == "" || p == spec || strings.HasPrefix(p, spec+"/")
}

// SortedUnique returns the strings of ss sorted, each once.
func SortedUnique(ss []string) []string {
	out := append([]string(nil), ss...)
	sort.Strings(out)
	k := 0
	for i, s := range out {
		if i == 0 || s != out[k-1] {
			out[k] = s
			k++
		}
	}
	return out[:k]
}

// SortedKeys returns the keys of set, sorted.
func SortedKeys[V any](set map[string]V) []string {
	out := make([]string, 0, len(set))
	for p := range set {
		out = append(out, p)
	}
	return SortedUnique(out)
}

// Rel returns p relative to dir, slash-separated ("" for dir
// itself), if p is dir or below it.
func Rel(dir, p string) (string, bool) {
	rel, err := filepath.Rel(filepath.Clean(dir), filepath.Clean(p))
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return "", false
	}
	if rel == "." {
		rel = ""
	}
	return filepath.ToSlash(rel), true
}
