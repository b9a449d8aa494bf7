package treetest

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// With returns a copy of t with the given paths set. A zero Entry
// removes its path.
func (t Tree) With(changes Tree) Tree {
	out := make(Tree, len(t))
	for p, e := range t {
		out[p] = e
	}
	for p, e := range changes {
		if e.Kind == 0 {
			delete(out, p)
		} else {
			out[p] = e
		}
	}
	return out
}

// Without returns a copy of t without the given paths and everything
// below them.
func (t Tree) Without(paths ...string) Tree {
	out := Tree{}
	for q, e := range t {
		drop := false
		for _, p := range paths {
			drop = drop || q == p || strings.HasPrefix(q, p+"/")
		}
		if !drop {
			out[q] = e
		}
	}
	return out
}

// Under returns the part of t at and below p. Paths stay whole.
func (t Tree) Under(p string) Tree {
	out := Tree{}
	for q, e := range t {
		if q == p || strings.HasPrefix(q, p+"/") {
			out[q] = e
		}
	}
	return out
}

// Check is Equal that lets the test go on: it reports every difference,
// at most 25 lines, as an error.
func Check(t testing.TB, what string, got, want Tree) {
	t.Helper()
	if d := diffHead(got, want, 25); d != nil {
		t.Errorf("%s: the tree differs:\n  %s", what, strings.Join(d, "\n  "))
	}
}

// Copy copies the folder src to dst, which must not exist: directories,
// regular files and symlinks, with their mode bits. Other types are an
// error.
func Copy(src, dst string) error {
	type dirMode struct {
		path string
		mode fs.FileMode
	}
	var dirs []dirMode
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			if err := os.Mkdir(target, 0o700); err != nil {
				return err
			}
			dirs = append(dirs, dirMode{target, info.Mode() & ModeMask})
		case d.Type()&fs.ModeSymlink != 0:
			link, err := os.Readlink(p)
			if err != nil {
				return err
			}
			return os.Symlink(link, target)
		case d.Type().IsRegular():
			return copyFile(p, target, info.Mode()&ModeMask)
		default:
			return fmt.Errorf("treetest: %s: cannot copy file type %v", p, d.Type())
		}
		return nil
	})
	if err != nil {
		return err
	}
	for i := len(dirs) - 1; i >= 0; i-- {
		if err := os.Chmod(dirs[i].path, dirs[i].mode); err != nil {
			return err
		}
	}
	return nil
}

func copyFile(src, dst string, mode fs.FileMode) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	if err := out.Close(); err != nil {
		return err
	}
	return os.Chmod(dst, mode)
}
