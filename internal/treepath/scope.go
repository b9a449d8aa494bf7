package treepath

import (
	"path"

	"github.com/turnback/turnback/manifest"
	"github.com/turnback/turnback/restore"
)

// Dirs returns the directories a capture scoped to paths reads: the
// work tree's top ("") and, for each path, the path itself, should it
// be a directory, and every directory above it.
func Dirs(paths []string) map[string]bool {
	dirty := map[string]bool{"": true}
	for _, p := range paths {
		// The path itself, should it be a directory, and every directory above it.
		for q := p; q != "." && q != "" && !dirty[q]; q = path.Dir(q) {
			dirty[q] = true
		}
	}
	return dirty
}

// KeepVouched keeps of a restore's actions those at the paths a partial
// state vouches for, and the directories above one of them that the
// folder lacks and the state holds (so that the path can come back).
func KeepVouched(actions []restore.Action, paths []string) []restore.Action {
	set := make(map[string]bool, len(paths))
	above := map[string]bool{}
	for _, p := range paths {
		set[p] = true
		for q := manifest.ParentPath(p); q != ""; q = manifest.ParentPath(q) {
			above[q] = true
		}
	}
	var out []restore.Action
	for _, a := range actions {
		switch {
		case set[a.Path]:
			out = append(out, a)
		case above[a.Path] && a.Old == nil && a.New != nil && a.New.Kind == manifest.KindDir:
			out = append(out, a)
		}
	}
	return out
}
