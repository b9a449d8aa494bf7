package treepath

import (
	"path"
	"sort"
)

// Names returns, for each directory of Dirs(paths) that is not itself
// one of paths, the names in it that lead to a path: the paths directly
// in it and the subdirectories above deeper ones, sorted, each once. A
// capture scoped to paths need read no other name there (see
// walker.Options.Names). A path that is a directory is absent: it is
// read whole.
func Names(paths []string) map[string][]string {
	given := make(map[string]bool, len(paths))
	for _, p := range paths {
		given[p] = true
	}
	sets := map[string]map[string]bool{"": {}}
	for _, p := range paths {
		for q := p; q != "." && q != ""; q = path.Dir(q) {
			dir, name := path.Dir(q), path.Base(q)
			if dir == "." {
				dir = ""
			}
			if sets[dir] == nil {
				sets[dir] = map[string]bool{}
			}
			if sets[dir][name] {
				break // the rest of the way up is there already
			}
			sets[dir][name] = true
		}
	}
	out := make(map[string][]string, len(sets))
	for dir, set := range sets {
		if given[dir] {
			continue
		}
		names := make([]string, 0, len(set))
		for n := range set {
			names = append(names, n)
		}
		sort.Strings(names)
		out[dir] = names
	}
	return out
}
