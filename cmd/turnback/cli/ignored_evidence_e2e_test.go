package cli

import (
	"strings"
	"testing"
)

const e2eCacheDirTag = "Signature: 8a477f597d28d172789f06886806bc55\n# a cache\n"

// TestUndoKeepsEvidenceSkippedDirs: a directory skipped for what it
// holds (a CACHEDIR.TAG, a CMakeCache.txt) in either state of an undo or
// a restore is never deleted or rewritten, also when the turn made it
// skipped or captured: by adding or removing the marker, or a "!build/"
// in .turnbackignore. Everything else of the turn is undone.
func TestUndoKeepsEvidenceSkippedDirs(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		// setup makes the state before the turn; turn is the agent's
		// edit; left lists paths the undo must leave as the turn left
		// them, on top of the before-state of every other path.
		setup, turn func(e *cliEnv)
		left        []string
	}{
		{
			name: "tag added",
			setup: func(e *cliEnv) {
				e.write("cache/a.txt", "a1\n")
			},
			turn: func(e *cliEnv) {
				e.write("cache/CACHEDIR.TAG", e2eCacheDirTag)
				e.write("cache/a.txt", "a2\n")
			},
			left: []string{"cache"},
		},
		{
			name: "tag removed",
			setup: func(e *cliEnv) {
				e.write("cache/CACHEDIR.TAG", e2eCacheDirTag)
				e.write("cache/a.txt", "a1\n")
			},
			turn: func(e *cliEnv) {
				e.remove("cache/CACHEDIR.TAG")
				e.write("cache/a.txt", "a2\n")
				e.write("cache/b.txt", "b\n")
			},
			left: []string{"cache"},
		},
		{
			name: "negation added",
			setup: func(e *cliEnv) {
				e.write("build/CMakeCache.txt", "CMAKE=1\n")
				e.write("build/out.o", "o1\n")
			},
			turn: func(e *cliEnv) {
				e.write(".turnbackignore", "!build/\n")
				e.write("build/out.o", "o2\n")
			},
			left: []string{"build"},
		},
		{
			name: "negation removed",
			setup: func(e *cliEnv) {
				e.write(".turnbackignore", "!build/\n")
				e.write("build/CMakeCache.txt", "CMAKE=1\n")
				e.write("build/out.o", "o1\n")
			},
			turn: func(e *cliEnv) {
				e.remove(".turnbackignore")
				e.write("build/out.o", "o2\n")
			},
			left: []string{"build"},
		},
	}
	g := newSubtestGroup(t)
	for _, c := range cases {
		for _, how := range []string{"undo", "restore"} {
			g.run(c.name+"/"+how, func(t *testing.T) {
				e := newStoreEnv(t) // named: the turn is set up in-process
				ip := e.setup()
				e.write("src/main.go", "package main\n")
				c.setup(e)
				before := e.tree()
				id := ip.snapID("snap", "-m", "the turn")
				c.turn(e)
				e.write("src/main.go", "package main // edited\n")
				after := e.tree()
				ip.ok("end")
				var r cliResult
				if how == "undo" {
					r = e.ok("undo")
				} else {
					r = e.ok("restore", id[:12])
				}
				want := before
				for _, p := range c.left {
					want = want.Without(p).With(after.Under(p))
				}
				e.same("after "+how, want)
				if !strings.Contains(r.stdout, "M src/main.go") {
					t.Errorf("src/main.go is not listed as restored:\n%v", r)
				}
			})
		}
	}
	g.wait()
}
