package main

// The tree fixture of the command-line tests: manifest/treetest's Tree,
// with the edits the tests make to build the tree they want and a
// comparison that reports every difference and lets the test go on.

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/turnback/turnback/manifest/treetest"
)

// fsTree is a folder's content: slash path -> entry (see treetest.Tree).
type fsTree treetest.Tree

// Entries of wanted trees.
func treeFile(data string) treetest.Entry                    { return treetest.File(data, 0o644) }
func treeFileMode(data string, m fs.FileMode) treetest.Entry { return treetest.File(data, m) }
func treeDir() treetest.Entry                                { return treetest.Dir(0o755) }
func treeDirMode(m fs.FileMode) treetest.Entry               { return treetest.Dir(m) }
func treeLink(target string) treetest.Entry                  { return treetest.Symlink(target) }

// readTree reads everything below root, never following symlinks.
func readTree(t testing.TB, root string, opts ...treetest.Option) fsTree {
	t.Helper()
	return fsTree(treetest.MustRead(t, root, opts...))
}

// makeTree creates tr below root (see treetest.Write).
func makeTree(t testing.TB, root string, tr fsTree) {
	t.Helper()
	treetest.MustWrite(t, root, treetest.Tree(tr))
}

// with returns a copy of tr with the given paths set (a zero entry
// removes the path).
func (tr fsTree) with(changes fsTree) fsTree {
	out := fsTree{}
	for p, n := range tr {
		out[p] = n
	}
	for p, n := range changes {
		if n.Kind == 0 {
			delete(out, p)
		} else {
			out[p] = n
		}
	}
	return out
}

// without returns a copy of tr without the given paths and everything
// below them.
func (tr fsTree) without(ps ...string) fsTree {
	out := fsTree{}
	for q, n := range tr {
		drop := false
		for _, p := range ps {
			if q == p || strings.HasPrefix(q, p+"/") {
				drop = true
			}
		}
		if !drop {
			out[q] = n
		}
	}
	return out
}

// under returns the part of tr at and below p (keys keep their full
// paths).
func (tr fsTree) under(p string) fsTree {
	out := fsTree{}
	for q, n := range tr {
		if q == p || strings.HasPrefix(q, p+"/") {
			out[q] = n
		}
	}
	return out
}

// sameTree reports every difference between got and want (the test goes
// on).
func sameTree(t testing.TB, what string, got, want fsTree) {
	t.Helper()
	if d := treetest.Diff(treetest.Tree(got), treetest.Tree(want)); len(d) > 0 {
		if len(d) > 25 {
			d = append(d[:25], fmt.Sprintf("... and %d more", len(d)-25))
		}
		t.Errorf("%s: the tree differs:\n  %s", what, strings.Join(d, "\n  "))
	}
}

// tree reads the work tree.
func (e *cliEnv) tree() fsTree {
	e.t.Helper()
	return readTree(e.t, e.dir)
}

// same compares the work tree with want.
func (e *cliEnv) same(what string, want fsTree) {
	e.t.Helper()
	sameTree(e.t, what, e.tree(), want)
}

// copyTree copies src to dst (which must not exist): directories,
// regular files and symlinks, with their permission bits.
func copyTree(src, dst string) error {
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
			dirs = append(dirs, dirMode{target, info.Mode() & treetest.ModeMask})
		case d.Type()&fs.ModeSymlink != 0:
			link, err := os.Readlink(p)
			if err != nil {
				return err
			}
			return os.Symlink(link, target)
		case d.Type().IsRegular():
			in, err := os.Open(p)
			if err != nil {
				return err
			}
			defer in.Close()
			out, err := os.OpenFile(target, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
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
			return os.Chmod(target, info.Mode()&treetest.ModeMask)
		default:
			return fmt.Errorf("%s: cannot copy file type %v", p, d.Type())
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
