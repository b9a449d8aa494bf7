package walker

import (
	"os"
	"path/filepath"
	"sync"

	"github.com/turnback/turnback/walker/gitindex"
)

// TrackedNow returns a function reporting whether git's index, as it is
// now, tracks rel (slash-separated, relative to the work tree at
// workTree): a file or symlink, or with isDir a directory holding
// tracked paths. The repository is the one a capture would take: the
// nearest directory of rel's parents holding ".git" (reached through
// directories, not symlinks), else the one the work tree is in. An index that cannot be read tracks nothing. Each
// index is read once, when first needed. For a restore judging a path
// a stored state lacks (package stateignore): git never ignores what
// it tracks. Safe for concurrent use.
func (g *GitIndexes) TrackedNow(workTree string) func(rel string, isDir bool) bool {
	abs, err := filepath.Abs(workTree)
	if err != nil {
		return func(string, bool) bool { return false }
	}
	var cache *gitindex.Cache
	if g != nil {
		cache = &g.cache
	}
	var mu sync.Mutex
	sets := map[string]*gitindex.Set{} // by the repository's directory, "" the work tree's
	load := func(d string) *gitindex.Set {
		mu.Lock()
		defer mu.Unlock()
		if s, ok := sets[d]; ok {
			return s
		}
		var s *gitindex.Set
		if d == "" {
			if top, prefix, ok := gitindex.FindTop(abs); ok {
				s, _, _ = cache.Load(top, prefix) // unreadable: nil, nothing tracked
			}
		} else {
			s, _, _ = cache.Load(filepath.Join(abs, filepath.FromSlash(d)), "")
		}
		sets[d] = s
		return s
	}
	return func(rel string, isDir bool) bool {
		if rel == "" {
			return false
		}
		// The nearest parent holding ".git", found from the top down
		// through real directories only: a symlink on the way (a
		// stored path that leads elsewhere now) is not followed.
		d := ""
		for i := 0; i < len(rel); i++ {
			if rel[i] != '/' {
				continue
			}
			p := filepath.Join(abs, filepath.FromSlash(rel[:i]))
			if fi, err := os.Lstat(p); err != nil || !fi.IsDir() {
				break
			}
			if fi, err := os.Lstat(filepath.Join(p, ".git")); err == nil && (fi.IsDir() || fi.Mode().IsRegular()) {
				d = rel[:i]
			}
		}
		set, sub := load(d), rel
		if d != "" {
			sub = rel[len(d)+1:]
		}
		if isDir {
			return set.Has(sub)
		}
		return set.HasFile(sub)
	}
}
