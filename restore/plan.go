package restore

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sort"
	"strings"

	"github.com/turnback/turnback/manifest"
)

// Action changes one path of the work tree from Old (what a capture just
// saw there; nil for nothing) to New (nil: remove it).
type Action struct {
	Path string
	Old  *manifest.Entry
	New  *manifest.Entry
}

// Skipped is a path a plan leaves alone, and why.
type Skipped struct {
	Path   string
	Reason string
}

// Plan is the checked list of actions of one restore.
type Plan struct {
	Actions []Action
	// Kept: directories to be removed that still hold something the
	// restore does not remove (ignored or uncaptured files); they stay.
	Kept []Skipped
	// Blocked: paths the restore cannot change (their content was never
	// captured, or something unknown to the snapshot is in the way).
	Blocked []Skipped
}

// UncapturedDirInTheWay is why a path is not restored when an
// uncaptured directory (a large new one) stands where it goes: the
// restore cannot remove what it never captured.
const UncapturedDirInTheWay = "an uncaptured directory is in the way"

func sortActions(as []Action) {
	sort.Slice(as, func(i, j int) bool { return manifest.ComparePaths(as[i].Path, as[j].Path) < 0 })
}

// removes reports whether the action must take away what is at its path
// before anything new can be put there: on a removal, and when a
// directory becomes something else or something else becomes a directory.
// (A file or symlink replaced by a file or symlink is swapped atomically
// by a rename instead.)
func (a *Action) removes() bool {
	if a.Old == nil {
		return false
	}
	if a.New == nil {
		return true
	}
	return a.Old.Kind != a.New.Kind && (a.Old.Kind == manifest.KindDir || a.New.Kind == manifest.KindDir)
}

// writesFile reports whether the action puts new file content in place.
func (a *Action) writesFile() bool {
	if a.New != nil && a.New.Kind == manifest.KindFIFO {
		return a.Old == nil || a.Old.Kind != manifest.KindFIFO // staged by mkfifo (stage.go)
	}
	if a.New == nil || a.New.Kind != manifest.KindFile {
		return false
	}
	return a.Old == nil || a.Old.Kind != manifest.KindFile || a.Old.Hash != a.New.Hash || a.Old.Uncaptured
}

func validPath(p string) error {
	if p == "" {
		return fmt.Errorf("restore: empty path")
	}
	for _, name := range strings.Split(p, "/") {
		if err := manifest.ValidName(name); err != nil {
			return fmt.Errorf("restore: path %q: %w", p, err)
		}
	}
	return dotGitProblem(p)
}

// NewPlan checks actions against the disk under root and returns the
// plan to apply. It refuses paths that are not clean relative names. It
// drops (into Blocked) an action whose new content was never captured,
// or that would create a path where something the snapshot does not know
// (an ignored file, say) already is; and (into Kept) the removal of a
// directory that holds anything the plan does not remove. Actions below
// a blocked path are blocked too.
func NewPlan(ctx context.Context, root *os.Root, actions []Action) (*Plan, error) {
	d := newDirs(root)
	defer d.close()
	return newPlan(ctx, diskView{d}, actions)
}

// newPlan is NewPlan checking actions against the disk as v shows it.
func newPlan(ctx context.Context, v view, actions []Action) (*Plan, error) {
	as := append([]Action(nil), actions...)
	for _, a := range as {
		if err := validPath(a.Path); err != nil {
			return nil, err
		}
	}
	sortActions(as)
	for i := 1; i < len(as); i++ {
		if as[i].Path == as[i-1].Path {
			return nil, fmt.Errorf("restore: path %q planned twice", as[i].Path)
		}
	}
	p := &Plan{}
	removed := map[string]bool{} // paths the plan takes away
	for _, a := range as {
		if a.removes() {
			removed[a.Path] = true
		}
	}
	// replaced: paths the plan makes into a new directory (nothing on
	// disk below them is kept).
	replaced := map[string]bool{}
	for _, a := range as {
		if a.New != nil && a.New.Kind == manifest.KindDir && (a.Old == nil || a.Old.Kind != manifest.KindDir) {
			replaced[a.Path] = true
		}
	}
	blocked := map[string]bool{}
	underBlocked := func(path string) bool {
		for q := manifest.ParentPath(path); q != ""; q = manifest.ParentPath(q) {
			if blocked[q] {
				return true
			}
		}
		return false
	}
	for _, a := range as {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		block := func(reason string) {
			blocked[a.Path] = true
			p.Blocked = append(p.Blocked, Skipped{Path: a.Path, Reason: reason})
		}
		switch {
		case underBlocked(a.Path):
			block("a parent directory cannot be restored")
			continue
		case a.New != nil && a.New.Uncaptured:
			block("its content was never captured")
			continue
		case a.Old != nil && a.Old.Uncaptured && a.Old.Kind == manifest.KindDir:
			block(UncapturedDirInTheWay)
			continue
		}
		if a.Old == nil && a.New != nil {
			if why := parentProblem(v, a.Path, replaced); why != "" {
				block(why)
				continue
			}
			m, err := v.lstat(a.Path)
			switch {
			case err == nil && !(a.New.Kind == manifest.KindDir && m.IsDir()):
				block(fmt.Sprintf("a %s not in the snapshot (ignored?) is in the way", kindOf(m)))
				continue
			case err != nil && !errors.Is(err, fs.ErrNotExist):
				return nil, fmt.Errorf("restore: %s: %w", a.Path, err)
			}
		}
		if a.Old != nil && a.Old.Kind == manifest.KindDir && a.removes() {
			extra, err := strangers(v, a.Path, removed)
			if err != nil {
				return nil, err
			}
			if extra != "" {
				if a.New == nil {
					p.Kept = append(p.Kept, Skipped{Path: a.Path, Reason: "still holds " + extra})
					continue
				}
				block("the directory still holds " + extra)
				continue
			}
		}
		p.Actions = append(p.Actions, a)
	}
	return p, nil
}

// parentProblem says why p cannot be created: an ancestor on disk is a
// symlink or a file the snapshot does not know (writing through it would
// follow a link, or fail after the commit point). Ancestors the plan
// replaces with a new directory, and missing ones, are fine.
func parentProblem(v view, p string, replaced map[string]bool) string {
	names := strings.Split(p, "/")
	q := ""
	for _, name := range names[:len(names)-1] {
		q = manifest.JoinPath(q, name)
		if replaced[q] {
			return ""
		}
		m, err := v.lstat(q)
		if err != nil {
			return "" // missing: the plan creates it
		}
		if !m.IsDir() {
			return fmt.Sprintf("%s on disk is a %s, not a directory", q, kindOf(m))
		}
	}
	return ""
}

// strangers returns the first entry inside directory rel that the plan
// does not remove, or "" if there is none.
func strangers(v view, rel string, removed map[string]bool) (string, error) {
	names, err := v.list(rel)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", nil
		}
		return "", fmt.Errorf("restore: %s: %w", rel, err)
	}
	sort.Strings(names)
	var subdirs []string
	for _, n := range names {
		child := rel + "/" + n
		if !removed[child] {
			return child, nil
		}
		m, err := v.lstat(child)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return "", fmt.Errorf("restore: %s: %w", child, err)
		}
		if err == nil && m.IsDir() {
			subdirs = append(subdirs, child)
		}
	}
	for _, child := range subdirs {
		if s, err := strangers(v, child, removed); err != nil || s != "" {
			return s, err
		}
	}
	return "", nil
}
