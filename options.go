package turnback

// The paths of a partial undo as a command line gives them (TreePaths);
// the rules over them are in internal/treepath.

import (
	"fmt"
	"path/filepath"

	"github.com/turnback/turnback/internal/storedir"
	"github.com/turnback/turnback/internal/treepath"
)

// TreePaths turns paths given relative to dir (absolute ones as they
// are), as a command line gives them, into the paths UndoOptions.Paths
// takes: slash-separated and relative to the work tree ("." for the work
// tree itself). dir and the paths may go through symbolic links. One
// that is empty or outside the work tree is an error wrapping ErrPath.
func (r *Repo) TreePaths(dir string, paths []string) ([]string, error) {
	out := make([]string, 0, len(paths))
	for _, p := range paths {
		if p == "" {
			return nil, treepath.ErrEmpty
		}
		abs := p
		if !filepath.IsAbs(p) {
			abs = filepath.Join(dir, p)
		}
		rel, ok := treepath.Rel(r.workTree, abs)
		if !ok {
			wt, err1 := filepath.EvalSymlinks(r.workTree)
			real, err2 := storedir.ResolveExisting(abs)
			if err1 == nil && err2 == nil {
				rel, ok = treepath.Rel(wt, real)
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
