package restore

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/turnback/turnback/manifest"
)

// ErrEscape: a path component on disk is not the real directory the
// restore expects (a symlink, a file, or a directory swapped while the
// restore ran). The restore refuses to follow it.
var ErrEscape = errors.New("restore: path component is not a real directory")

// dirs opens directories of the work tree one component at a time. Each
// component is checked to be a real directory (never a symlink), and the
// opened handle is checked to be the same directory the check saw, so a
// directory swapped for a symlink cannot redirect an operation. Leaf
// operations then go through the directory's own handle.
type dirs struct {
	root  *os.Root
	open  map[string]*os.Root
	order []string // open order, for bounded caching
}

const maxOpenDirs = 128

func newDirs(root *os.Root) *dirs {
	return &dirs{root: root, open: map[string]*os.Root{}}
}

func (d *dirs) close() {
	for _, r := range d.open {
		r.Close()
	}
	d.open = map[string]*os.Root{}
	d.order = nil
}

// get returns a handle of the directory rel ("" is the work tree root).
func (d *dirs) get(rel string) (*os.Root, error) {
	if rel == "" || rel == "." {
		return d.root, nil
	}
	if r, ok := d.open[rel]; ok {
		return r, nil
	}
	parentPath, name := manifest.SplitPath(rel)
	parent, err := d.get(parentPath)
	if err != nil {
		return nil, err
	}
	fi, err := parent.Lstat(name)
	if err != nil {
		return nil, err
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("%w: %s is a %s", ErrEscape, rel, kindOf(fi.Mode()))
	}
	r, err := parent.OpenRoot(name)
	if err != nil {
		return nil, err
	}
	got, err := r.Stat(".")
	if err != nil || !os.SameFile(fi, got) {
		r.Close()
		return nil, fmt.Errorf("%w: %s changed while it was opened", ErrEscape, rel)
	}
	if len(d.order) >= maxOpenDirs {
		// Forget the oldest handles; they are reopened (and rechecked) on
		// demand.
		for _, p := range d.order[:maxOpenDirs/2] {
			if h, ok := d.open[p]; ok {
				h.Close()
				delete(d.open, p)
			}
		}
		d.order = append([]string(nil), d.order[maxOpenDirs/2:]...)
	}
	d.open[rel] = r
	d.order = append(d.order, rel)
	return r, nil
}

// forget drops the cached handle of rel and everything below it (after
// rel was removed or replaced).
func (d *dirs) forget(rel string) {
	for p, r := range d.open {
		if p == rel || strings.HasPrefix(p, rel+"/") {
			r.Close()
			delete(d.open, p)
		}
	}
}

// leaf returns the handle of the directory holding rel, and rel's name.
func (d *dirs) leaf(rel string) (*os.Root, string, error) {
	dir, name := manifest.SplitPath(rel)
	r, err := d.get(dir)
	return r, name, err
}

// lstat stats rel without following a final symlink. A missing parent
// (or a parent that is not a directory) reads as not existing.
func (d *dirs) lstat(rel string) (fs.FileInfo, error) {
	r, name, err := d.leaf(rel)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, ErrEscape) {
			return nil, fs.ErrNotExist
		}
		return nil, err
	}
	return r.Lstat(name)
}

func kindOf(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "directory"
	case m&fs.ModeSymlink != 0:
		return "symlink"
	case m.IsRegular():
		return "file"
	}
	return "special file"
}
