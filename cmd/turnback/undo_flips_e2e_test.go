package main

// End-to-end tests of undo and redo across type flips (file, directory,
// symlink) and mode-only changes.

import (
	"strings"
	"testing"
)

// typeFlip is one type, mode or target change a turn makes, and its tree
// before the turn.
type typeFlip struct {
	name   string
	before fsTree
	change func(e *cliEnv, p func(string) string)
}

var typeFlips = []typeFlip{
	{"file to dir", fsTree{"x": treeFile("a file\n")}, func(e *cliEnv, p func(string) string) {
		e.rm(p("x"))
		e.write(p("x/inner.txt"), "inside\n")
	}},
	{"dir to file", fsTree{"x/a": treeFile("a\n"), "x/sub/b": treeFile("b\n"), "x/empty": treeDir()}, func(e *cliEnv, p func(string) string) {
		e.rm(p("x"))
		e.write(p("x"), "a file now\n")
	}},
	{"file to symlink", fsTree{"x": treeFile("a file\n"), "t.txt": treeFile("target\n")}, func(e *cliEnv, p func(string) string) {
		e.rm(p("x"))
		e.link("t.txt", p("x"))
	}},
	{"symlink to file", fsTree{"x": treeLink("t.txt"), "t.txt": treeFile("target\n")}, func(e *cliEnv, p func(string) string) {
		e.rm(p("x"))
		e.write(p("x"), "a file now\n")
	}},
	{"dir to symlink", fsTree{"x/a": treeFile("a\n")}, func(e *cliEnv, p func(string) string) {
		e.rm(p("x"))
		e.link("elsewhere", p("x"))
	}},
	{"symlink to dir", fsTree{"x": treeLink("nowhere")}, func(e *cliEnv, p func(string) string) {
		e.rm(p("x"))
		e.write(p("x/a"), "a\n")
	}},
	{"file to empty dir", fsTree{"x": treeFile("a file\n")}, func(e *cliEnv, p func(string) string) {
		e.rm(p("x"))
		e.mkdir(p("x"))
	}},
	{"file mode only", fsTree{"run.sh": treeFile("#!/bin/sh\necho hi\n")}, func(e *cliEnv, p func(string) string) {
		e.chmod(p("run.sh"), 0o755)
	}},
	{"file mode removed", fsTree{"run.sh": treeFileMode("#!/bin/sh\n", 0o750)}, func(e *cliEnv, p func(string) string) {
		e.chmod(p("run.sh"), 0o600)
	}},
	{"dir mode only", fsTree{"d": treeDir(), "d/a": treeFile("a\n")}, func(e *cliEnv, p func(string) string) {
		e.chmod(p("d"), 0o700)
	}},
	{"content and mode", fsTree{"f": treeFile("one\n")}, func(e *cliEnv, p func(string) string) {
		e.write(p("f"), "two\n")
		e.chmod(p("f"), 0o640)
	}},
	{"symlink target", fsTree{"l": treeLink("a"), "a": treeFile("a\n"), "b": treeFile("b\n")}, func(e *cliEnv, p func(string) string) {
		e.rm(p("l"))
		e.link("b", p("l"))
	}},
	{"symlink target outside", fsTree{"l": treeLink("/etc/passwd")}, func(e *cliEnv, p func(string) string) {
		e.rm(p("l"))
		e.link("../../../outside", p("l"))
	}},
	{"empty dirs created", fsTree{"a": treeFile("a\n")}, func(e *cliEnv, p func(string) string) {
		e.mkdir(p("e"))
		e.mkdir(p("e2/sub/subsub"))
	}},
	{"empty dirs deleted", fsTree{"a": treeFile("a\n"), "e": treeDir(), "e2/sub/subsub": treeDir(), "e3": treeDirMode(0o700)}, func(e *cliEnv, p func(string) string) {
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
	run := func(t *testing.T, flips []typeFlip, prefixed, twice bool) {
		e := newUndoEnv(t)
		before := fsTree{}
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
		makeTree(t, e.dir, before)
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
