package restore

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/turnback/turnback/manifest"
)

// view is the disk a plan checks its actions against.
type view interface {
	// lstat returns the type bits of rel, not following a final
	// symlink; fs.ErrNotExist when it is missing or a component above
	// it is not a directory.
	lstat(rel string) (fs.FileMode, error)
	// list returns the names in directory rel; fs.ErrNotExist when it
	// is missing, ErrEscape when a component is not a directory.
	list(rel string) ([]string, error)
}

// diskView is the disk itself.
type diskView struct{ d *dirs }

func (v diskView) lstat(rel string) (fs.FileMode, error) {
	fi, err := v.d.lstat(rel)
	if err != nil {
		return 0, err
	}
	return fi.Mode().Type(), nil
}

func (v diskView) list(rel string) ([]string, error) {
	r, err := v.d.get(rel)
	if err != nil {
		return nil, err
	}
	f, err := r.Open(".")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.Readdirnames(-1)
}

// NewPlanAfter is NewPlan for a restore that runs after the plans
// before, in order, on the same disk (a dry run of several steps): the
// actions are checked against the disk as those plans would leave it.
// A path they set is what they set, and what was on disk below a path
// they removed or made anew is gone.
func NewPlanAfter(ctx context.Context, root *os.Root, before []*Plan, actions []Action) (*Plan, error) {
	d := newDirs(root)
	defer d.close()
	o := &overlay{base: diskView{d}, set: map[string]*manifest.Entry{}, fresh: map[string]bool{}, kids: map[string]map[string]bool{}}
	for _, p := range before {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		o.apply(p.Actions)
	}
	return newPlan(ctx, o, actions)
}

// overlay is a disk with plans applied on top, without writing.
type overlay struct {
	base view
	// set: what the plans left at a path (nil: nothing).
	set map[string]*manifest.Entry
	// fresh: paths set by an action after which nothing of the disk
	// below them is left (removed, or not the same directory).
	fresh map[string]bool
	// kids: the names set in a directory.
	kids map[string]map[string]bool
}

// apply puts the actions of one plan on top. What earlier plans set
// below a path this one makes fresh is gone first.
func (o *overlay) apply(actions []Action) {
	cut := map[string]bool{}
	for _, a := range actions {
		sameDir := a.Old != nil && a.Old.Kind == manifest.KindDir && a.New != nil && a.New.Kind == manifest.KindDir
		if !sameDir {
			cut[a.Path] = true
		}
	}
	if len(cut) > 0 {
		for p := range o.set {
			if below(p, cut) {
				o.forget(p)
			}
		}
	}
	for _, a := range actions {
		o.set[a.Path] = a.New
		delete(o.fresh, a.Path)
		if cut[a.Path] {
			o.fresh[a.Path] = true
		}
		dir, name := manifest.SplitPath(a.Path)
		if o.kids[dir] == nil {
			o.kids[dir] = map[string]bool{}
		}
		o.kids[dir][name] = true
	}
}

// below reports whether a directory above p is in cut.
func below(p string, cut map[string]bool) bool {
	for q := manifest.ParentPath(p); q != ""; q = manifest.ParentPath(q) {
		if cut[q] {
			return true
		}
	}
	return false
}

// forget drops what the plans set at p.
func (o *overlay) forget(p string) {
	delete(o.set, p)
	delete(o.fresh, p)
	delete(o.kids, p)
	dir, name := manifest.SplitPath(p)
	delete(o.kids[dir], name)
}

// lookup returns what the plans left at rel, and whether they decide
// it (false: the disk does).
func (o *overlay) lookup(rel string) (*manifest.Entry, bool) {
	if e, ok := o.set[rel]; ok {
		return e, true
	}
	for q := manifest.ParentPath(rel); q != ""; q = manifest.ParentPath(q) {
		e, ok := o.set[q]
		switch {
		case !ok:
		case e == nil || e.Kind != manifest.KindDir || o.fresh[q]:
			return nil, true
		}
	}
	return nil, false
}

func (o *overlay) lstat(rel string) (fs.FileMode, error) {
	e, ok := o.lookup(rel)
	if !ok {
		return o.base.lstat(rel)
	}
	if e == nil {
		return 0, fs.ErrNotExist
	}
	return modeOf(e.Kind), nil
}

func (o *overlay) list(rel string) ([]string, error) {
	e, ok := o.lookup(rel)
	if ok && e == nil {
		return nil, fs.ErrNotExist
	}
	if ok && e.Kind != manifest.KindDir {
		return nil, fmt.Errorf("%w: %s is a %s", ErrEscape, rel, kindOf(modeOf(e.Kind)))
	}
	var names []string
	if !o.fresh[rel] {
		var err error
		names, err = o.base.list(rel)
		if err != nil && !(ok && (errors.Is(err, fs.ErrNotExist) || errors.Is(err, ErrEscape))) {
			return nil, err
		}
	}
	kids := o.kids[rel]
	out := names[:0]
	for _, n := range names {
		if !kids[n] {
			out = append(out, n)
		}
	}
	for n := range kids {
		if o.set[manifest.JoinPath(rel, n)] != nil {
			out = append(out, n)
		}
	}
	return out, nil
}

// modeOf is the type bits of an entry of kind k.
func modeOf(k manifest.Kind) fs.FileMode {
	switch k {
	case manifest.KindDir:
		return fs.ModeDir
	case manifest.KindSymlink:
		return fs.ModeSymlink
	case manifest.KindFIFO:
		return fs.ModeNamedPipe
	}
	return 0
}
