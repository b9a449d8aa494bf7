package cli

// End-to-end tests of undo and redo across type flips (file, directory,
// symlink) and mode-only changes.

import (
	"strings"
	"testing"

	"github.com/turnback/turnback/manifest/treetest"
)

// typeFlip is one type, mode or target change a turn makes, and its tree
// before the turn.
type typeFlip struct {
	name   string
	before treetest.Tree
	change func(e *cliEnv, p func(string) string)
}

var typeFlips = []typeFlip{
	{"file to dir", treetest.Tree{"x": treetest.File("a file\n", 0o644)}, func(e *cliEnv, p func(string) string) {
		e.rm(p("x"))
		e.write(p("x/inner.txt"), "inside\n")
	}},
	{"dir to file", treetest.Tree{"x/a": treetest.File("a\n", 0o644), "x/sub/b": treetest.File("b\n", 0o644), "x/empty": treetest.Dir(0o755)}, func(e *cliEnv, p func(string) string) {
		e.rm(p("x"))
		e.write(p("x"), "a file now\n")
	}},
	{"file to symlink", treetest.Tree{"x": treetest.File("a file\n", 0o644), "t.txt": treetest.File("target\n", 0o644)}, func(e *cliEnv, p func(string) string) {
		e.rm(p("x"))
		e.link("t.txt", p("x"))
	}},
	{"symlink to file", treetest.Tree{"x": treetest.Symlink("t.txt"), "t.txt": treetest.File("target\n", 0o644)}, func(e *cliEnv, p func(string) string) {
		e.rm(p("x"))
		e.write(p("x"), "a file now\n")
	}},
	{"dir to symlink", treetest.Tree{"x/a": treetest.File("a\n", 0o644)}, func(e *cliEnv, p func(string) string) {
		e.rm(p("x"))
		e.link("elsewhere", p("x"))
	}},
	{"symlink to dir", treetest.Tree{"x": treetest.Symlink("nowhere")}, func(e *cliEnv, p func(string) string) {
		e.rm(p("x"))
		e.write(p("x/a"), "a\n")
	}},
	{"file to empty dir", treetest.Tree{"x": treetest.File("a file\n", 0o644)}, func(e *cliEnv, p func(string) string) {
		e.rm(p("x"))
		e.mkdir(p("x"))
	}},
	{"file mode only", treetest.Tree{"run.sh": treetest.File("#!/bin/sh\necho hi\n", 0o644)}, func(e *cliEnv, p func(string) string) {
		e.chmod(p("run.sh"), 0o755)
	}},
	{"file mode removed", treetest.Tree{"run.sh": treetest.File("#!/bin/sh\n", 0o750)}, func(e *cliEnv, p func(string) string) {
		e.chmod(p("run.sh"), 0o600)
	}},
	{"dir mode only", treetest.Tree{"d": treetest.Dir(0o755), "d/a": treetest.File("a\n", 0o644)}, func(e *cliEnv, p func(string) string) {
		e.chmod(p("d"), 0o700)
	}},
	{"content and mode", treetest.Tree{"f": treetest.File("one\n", 0o644)}, func(e *cliEnv, p func(string) string) {
		e.write(p("f"), "two\n")
		e.chmod(p("f"), 0o640)
	}},
	{"symlink target", treetest.Tree{"l": treetest.Symlink("a"), "a": treetest.File("a\n", 0o644), "b": treetest.File("b\n", 0o644)}, func(e *cliEnv, p func(string) string) {
		e.rm(p("l"))
		e.link("b", p("l"))
	}},
	{"symlink target outside", treetest.Tree{"l": treetest.Symlink("/etc/passwd")}, func(e *cliEnv, p func(string) string) {
		e.rm(p("l"))
		e.link("../../../outside", p("l"))
	}},
	{"empty dirs created", treetest.Tree{"a": treetest.File("a\n", 0o644)}, func(e *cliEnv, p func(string) string) {
		e.mkdir(p("e"))
		e.mkdir(p("e2/sub/subsub"))
	}},
	{"empty dirs deleted", treetest.Tree{"a": treetest.File("a\n", 0o644), "e": treetest.Dir(0o755), "e2/sub/subsub": treetest.Dir(0o755), "e3": treetest.Dir(0o700)}, func(e *cliEnv, p func(string) string) {
		e.rm(p("e"))
		e.rm(p("e2"))
		e.rm(p("e3"))
	}},
}

// TestE2ETypeFlips: type flips, permission-only changes, symlink target
// changes and empty directories undo and redo exactly, one per turn and
// all in one turn.
func TestE2ETypeFlips(t *testing.T) {
	t.Parallel()
	g := newSubtestGroup(t)
	// twice: a second round of undo and redo, after the first has left
	// its stat data behind.
	// One flip a turn runs in-process (env_test.go); all in one turn runs
	// the binary.
	run := func(t *testing.T, flips []typeFlip, prefixed, twice bool) {
		e := newUndoEnv(t)
		if !twice {
			e = newInProcessEnv(t)
		}
		before := treetest.Tree{}
		prefix := func(f typeFlip) func(string) string {
			if !prefixed {
				return func(s string) string { return s }
			}
			dir := strings.ReplaceAll(f.name, " ", "-")
			return func(s string) string { return dir + "/" + s }
		}
		for _, f := range flips {
			for path, n := range f.before {
				before[prefix(f)(path)] = n
			}
		}
		treetest.MustWrite(t, e.dir, before)
		before = e.tree()
		e.ok("snap")
		for _, f := range flips {
			f.change(e, prefix(f))
		}
		e.ok("end")
		after := e.tree()
		e.ok("undo")
		e.same("after undo", before)
		e.ok("redo")
		e.same("after redo", after)
		if twice {
			e.ok("undo")
			e.same("after the second undo", before)
			e.ok("redo")
			e.same("after the second redo", after)
		}
	}
	for _, f := range typeFlips {
		g.run(f.name, func(t *testing.T) {
			run(t, []typeFlip{f}, false, false)
		})
	}
	g.run("all in one turn", func(t *testing.T) {
		run(t, typeFlips, true, true)
	})
	g.wait()
}
