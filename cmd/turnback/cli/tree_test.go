package cli

// The work tree of a cliEnv read and compared through treetest, the one
// tree fixture.

import (
	"github.com/turnback/turnback/manifest/treetest"
)

// tree reads the work tree.
func (e *cliEnv) tree() treetest.Tree {
	e.t.Helper()
	return treetest.MustRead(e.t, e.dir)
}

// same compares the work tree with want; the test goes on.
func (e *cliEnv) same(what string, want treetest.Tree) {
	e.t.Helper()
	treetest.Check(e.t, what, e.tree(), want)
}
