package restore

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// outsideTree is what a directory outside the work tree holds; every
// confinement test checks it is untouched afterwards.
var outsideTree = tree{"b": dir(0o755), "b/file": file("outside b/file", 0o644), "victim": file("v", 0o644)}

// TestConfinedSymlinkParent: the plan creates a/b/file, and on disk a is
// a symlink (to a directory outside the work tree, or inside it). Nothing
// may be written through the link: the actions are blocked, or the
// restore fails, naming the path, without changing the tree.
func TestConfinedSymlinkParent(t *testing.T) {
	type setup struct {
		name   string
		inside bool // the link points to a directory inside the work tree
		plan   func(e *env) []Action
	}
	create := func(e *env, paths ...string) []Action {
		full := tree{"a": dir(0o755), "a/b": dir(0o755), "a/b/file": file("restored", 0o644)}
		var as []Action
		for _, p := range paths {
			as = append(as, Action{Path: p, New: e.entry(p, full[p])})
		}
		// An unrelated change in the same plan: it must not happen
		// alone if the rest fails.
		as = append(as, Action{Path: "z", Old: e.entry("z", file("z1", 0o644)), New: e.entry("z", file("z2", 0o644))})
		return as
	}
	var cases []setup
	for _, inside := range []bool{false, true} {
		where := "outside"
		if inside {
			where = "inside"
		}
		cases = append(cases,
			setup{where + ": plan creates a too", inside, func(e *env) []Action { return create(e, "a", "a/b", "a/b/file") }},
			setup{where + ": plan thinks a is a directory", inside, func(e *env) []Action { return create(e, "a/b", "a/b/file") }},
			setup{where + ": plan thinks a/b is a directory", inside, func(e *env) []Action { return create(e, "a/b/file") }},
		)
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			outside := tempDir(t)
			build(t, outside, outsideTree)
			target := outside
			disk := tree{"z": file("z1", 0o644)}
			if tc.inside {
				target = "in"
				disk = disk.Merge(tree{"in": dir(0o755)})
				for p, n := range outsideTree {
					disk["in/"+p] = n
				}
			}
			disk["a"] = link(target)
			build(t, e.dir, disk)
			as := tc.plan(e)
			p, err := NewPlan(context.Background(), e.root(), as)
			if err != nil {
				t.Logf("NewPlan refused: %v", err)
				checkTree(t, e.dir, disk)
				checkTree(t, outside, outsideTree)
				return
			}
			blocked := map[string]bool{}
			for _, b := range p.Blocked {
				blocked[b.Path] = true
			}
			res, err := Apply(context.Background(), e.root(), p, e.opts())
			t.Logf("blocked %v; Apply: %v", p.Blocked, err)
			checkTree(t, outside, outsideTree)
			if err != nil {
				if !strings.Contains(err.Error(), "a/b") {
					t.Errorf("error %q does not name the path", err)
				}
				if journalExists(t, e) {
					t.Errorf("the restore failed after its commit point: the tree is half changed")
				}
				checkTree(t, e.dir, disk)
				checkClean(t, e)
				if _, rerr := Recover(context.Background(), openRoot(t, e.dir), e.opts()); rerr != nil {
					t.Errorf("Recover cannot finish it either: %v", rerr)
				}
			} else {
				for _, a := range as {
					if strings.HasPrefix(a.Path, "a/") && !blocked[a.Path] {
						t.Errorf("%s was neither blocked nor failed", a.Path)
					}
				}
				_ = res
				checkTree(t, e.dir, disk.Merge(tree{"z": file("z2", 0o644)}))
				checkClean(t, e)
			}
			checkTree(t, outside, outsideTree)
			if fi, err := os.Lstat(filepath.Join(e.dir, "a")); err != nil || fi.Mode()&os.ModeSymlink == 0 {
				t.Errorf("a is no longer the symlink: %v %v", fi, err)
			}
		})
	}
}

// TestConfinedSymlinkReplacedByDir: the plan knows a is a symlink and
// makes it a directory: the link is removed, never followed.
func TestConfinedSymlinkReplacedByDir(t *testing.T) {
	e := newEnv(t)
	outside := tempDir(t)
	build(t, outside, outsideTree)
	old := tree{"a": link(outside)}
	new := tree{"a": dir(0o755), "a/b": dir(0o755), "a/b/file": file("restored", 0o644)}
	build(t, e.dir, old)
	if _, err := Apply(context.Background(), e.root(), e.plan(e.actions(old, new)), e.opts()); err != nil {
		t.Fatal(err)
	}
	checkTree(t, e.dir, new)
	checkTree(t, outside, outsideTree)
	checkClean(t, e)
}

// TestConfinedSwapMidRestore: while the restore runs, a directory it
// writes into is renamed away and a symlink put in its place. The write
// must fail or land in the original directory, never through the link.
func TestConfinedSwapMidRestore(t *testing.T) {
	cases := []struct {
		name     string
		old, new tree
		at       string // the step at which the swap happens
		swap     string // the directory swapped
		inside   bool   // the link points inside the work tree
	}{
		{"existing dir, file below it",
			tree{"d": dir(0o755), "d/x": file("old x", 0o644)},
			tree{"d": dir(0o755), "d/x": file("new x", 0o644), "d/y": file("new y", 0o644)},
			"place d/x", "d", false},
		{"existing dir, deeper file",
			tree{"d": dir(0o755), "d/e": dir(0o755), "d/e/x": file("old x", 0o644)},
			tree{"d": dir(0o755), "d/e": dir(0o755), "d/e/x": file("new x", 0o644)},
			"place d/e/x", "d", false},
		{"existing dir, new subdir",
			tree{"d": dir(0o755)},
			tree{"d": dir(0o755), "d/n": dir(0o755), "d/n/x": file("new x", 0o644)},
			"place d/n", "d", false},
		{"dir created by the restore",
			tree{},
			tree{"n": dir(0o755), "n/x": file("new x", 0o644)},
			"place n/x", "n", false},
		{"dir created by the restore, link inside the tree",
			tree{},
			tree{"n": dir(0o755), "n/x": file("new x", 0o644)},
			"place n/x", "n", true},
		{"existing dir, link inside the tree",
			tree{"d": dir(0o755), "d/x": file("old x", 0o644)},
			tree{"d": dir(0o755), "d/x": file("new x", 0o644)},
			"place d/x", "d", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			outside := tempDir(t)
			build(t, outside, outsideTree)
			build(t, e.dir, tc.old)
			var inTree tree
			target := outside
			if tc.inside {
				target = "in"
				inTree = tree{"in": dir(0o755), "in/victim": file("v", 0o644)}
				build(t, e.dir, inTree)
			}
			p := e.plan(e.actions(tc.old, tc.new))
			o := e.opts()
			swapped := false
			o.Hook = func(step string) error {
				if step != tc.at || swapped {
					return nil
				}
				swapped = true
				full := filepath.Join(e.dir, tc.swap)
				if err := os.Rename(full, full+".orig"); err != nil {
					return err
				}
				return os.Symlink(target, full)
			}
			_, err := Apply(context.Background(), e.root(), p, o)
			if !swapped {
				t.Fatalf("never reached %q", tc.at)
			}
			t.Logf("Apply: %v", err)
			check := func(when string) {
				t.Helper()
				checkTree(t, outside, outsideTree)
				if tc.inside {
					got := state(t, e.dir)
					for pth := range got {
						if strings.HasPrefix(pth, "in/") && inTree[pth] != got[pth] {
							t.Errorf("%s: %s written through the swapped link: %v", when, pth, got[pth])
						}
					}
				}
				if fi, err := os.Lstat(filepath.Join(e.dir, tc.swap)); err != nil || fi.Mode()&os.ModeSymlink == 0 {
					t.Errorf("%s: the link %s was replaced: %v", when, tc.swap, err)
				}
			}
			check("Apply")
			if err == nil {
				// Everything landed in the original directory.
				orig := state(t, filepath.Join(e.dir, tc.swap+".orig"))
				for pth, n := range tc.new {
					if rest, ok := strings.CutPrefix(pth, tc.swap+"/"); ok && orig[rest] != n {
						t.Errorf("%s: %v in the original directory, want %v", pth, orig[rest], n)
					}
				}
				checkClean(t, e)
				return
			}
			if !errors.Is(err, ErrEscape) {
				t.Logf("error is not ErrEscape: %v", err)
			}
			if journalExists(t, e) {
				_, rerr := Recover(context.Background(), openRoot(t, e.dir), e.opts())
				t.Logf("Recover: %v", rerr)
				check("Recover")
			}
		})
	}
}
