package main

// The tree fixture of the command-line tests: manifest/treetest's Tree,
// with the edits the tests make to build the tree they want and a
// comparison that reports every difference and lets the test go on.

import (
	"fmt"
	"io/fs"
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
