package turnback

import (
	"context"

	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/manifest"
)

// uncapturedDirs finds the directories of a state whose content was
// never captured (large new directories), answering once per directory.
type uncapturedDirs struct {
	loader manifest.Loader
	now    cas.Hash
	memo   map[string]*manifest.Entry // by parent directory
}

func newUncapturedDirs(loader manifest.Loader, now cas.Hash) *uncapturedDirs {
	return &uncapturedDirs{loader: loader, now: now, memo: map[string]*manifest.Entry{}}
}

// above returns the entry of the directory above path p in the state
// whose content was never captured, nil if there is none; cur is p's
// entry there. Such a directory hides what p holds: an action on p gets
// it as its Old, and the plan blocks it (restore.UncapturedDirInTheWay),
// naming p as not restorable.
func (u *uncapturedDirs) above(ctx context.Context, p string, cur *manifest.Entry) (*manifest.Entry, error) {
	dir := manifest.ParentPath(p)
	if cur != nil || dir == "" {
		return nil, nil // its parents are captured directories
	}
	if e, ok := u.memo[dir]; ok {
		if e == nil {
			return nil, nil
		}
		c := *e // each action its own
		return &c, nil
	}
	e, err := manifest.Find(ctx, u.loader, u.now, dir)
	if err != nil {
		return nil, err
	}
	var out *manifest.Entry
	switch {
	case e != nil && e.Kind == manifest.KindDir && e.Uncaptured:
		out = e
	case e == nil:
		// Absent, or below something not a captured directory.
		if out, err = u.above(ctx, dir, nil); err != nil {
			return nil, err
		}
	}
	u.memo[dir] = out
	if out == nil {
		return nil, nil
	}
	c := *out
	return &c, nil
}
