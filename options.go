package turnback

// The options of Undo, Redo and Restore, the paths of a partial undo, and
// what a dry run returns.

import (
	"fmt"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/turnback/turnback/internal/storedir"
)

// errEmptyPath: an empty path given to a partial undo (an unset shell
// variable, most likely) names nothing; it never means "everything".
var errEmptyPath = fmt.Errorf(`%w: an empty path ("") names no file or directory; nothing was done`, ErrPath)

// cleanPaths checks and normalises the paths of a partial undo: clean,
// relative, slash-separated; "." becomes "" (the whole tree). An empty
// path is an error.
func cleanPaths(ps []string) ([]string, error) {
	out := make([]string, 0, len(ps))
	for _, p := range ps {
		if p == "" {
			return nil, errEmptyPath
		}
		q := path.Clean(p)
		if strings.ContainsRune(p, 0) || path.IsAbs(q) || q == ".." || strings.HasPrefix(q, "../") {
			return nil, fmt.Errorf("%w: %q is not inside the work tree", ErrPath, p)
		}
		if q == "." {
			q = ""
		}
		out = append(out, q)
	}
	return out, nil
}

// underSpec reports whether path p is spec or below it ("" is the whole
// tree).
func underSpec(p, spec string) bool {
	return spec == "" || p == spec || strings.HasPrefix(p, spec+"/")
}

// sortedUnique returns the strings of ss sorted, each once.
func sortedUnique(ss []string) []string {
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

// TreePaths turns paths given relative to dir (absolute ones as they
// are), as a command line gives them, into the paths UndoOptions.Paths
// takes: slash-separated and relative to the work tree ("." for the work
// tree itself). dir and the paths may go through symbolic links. One
// that is empty or outside the work tree is an error wrapping ErrPath.
func (r *Repo) TreePaths(dir string, paths []string) ([]string, error) {
	out := make([]string, 0, len(paths))
	for _, p := range paths {
		if p == "" {
			return nil, errEmptyPath
		}
		abs := p
		if !filepath.IsAbs(p) {
			abs = filepath.Join(dir, p)
		}
		rel, ok := relInside(r.workTree, abs)
		if !ok {
			wt, err1 := filepath.EvalSymlinks(r.workTree)
			real, err2 := storedir.ResolveExisting(abs)
			if err1 == nil && err2 == nil {
				rel, ok = relInside(wt, real)
			}
		}
		if !ok {
			return nil, fmt.Errorf("%w: %q is not inside the work tree %s", ErrPath, p, r.workTree)
		}
		if rel == "" {
			rel = "."
		}
		out = append(out, rel)
	}
	return out, nil
}

// relInside returns p relative to dir, slash-separated ("" for dir
// itself), if p is dir or below it.
func relInside(dir, p string) (string, bool) {
	rel, err := filepath.Rel(filepath.Clean(dir), filepath.Clean(p))
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return "", false
	}
	if rel == "." {
		rel = ""
	}
	return filepath.ToSlash(rel), true
}
