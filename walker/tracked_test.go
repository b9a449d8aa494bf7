//go:build unix

package walker

import (
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/manifest/treetest"
)

const cacheTag = "Signature: 8a477f597d28d172789f06886806bc55\n# This file is a cache directory tag.\n"

// git runs the git binary in dir, as a fixture tool: turnback never
// runs it.
func git(t testing.TB, dir string, args ...string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@t"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

func has(paths []string, p string) bool { return slices.Contains(paths, p) }

// TestEvidencePlainFolder: outside git, a hand-written build/ is
// captured, a target/ with a cache directory tag is skipped (and so is
// any directory with one), a build output with CMakeCache.txt and a
// virtual environment too; node_modules stays skipped by name; "!"
// in an ignore file keeps a directory the defaults would skip.
func TestEvidencePlainFolder(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	treetest.PutAll(t, dir, map[string]string{
		"build/run.sh":              "#!/bin/sh\necho hi\n",
		"dist/lib.js":               "export {}\n",
		"target/CACHEDIR.TAG":       cacheTag,
		"target/debug/app":          "binary",
		"target2/CACHEDIR.TAG":      "Signature: not the right one\n",
		"target2/x":                 "kept: a tag without the signature is no evidence",
		"anyname/CACHEDIR.TAG":      cacheTag,
		"anyname/blob":              "skipped whatever the name",
		"out/CMakeCache.txt":        "CMAKE_BUILD_TYPE:STRING=Debug\n",
		"out/main.o":                "obj",
		"env/pyvenv.cfg":            "home = /usr\n",
		"env/lib/site.py":           "x",
		"node_modules/a/index.js":   "x",
		"keep/node_modules/x.js":    "kept by !",
		"keep/.turnbackignore":      "!node_modules/\n",
		"sub/.gitignore":            "!target/\n",
		"sub/target/CACHEDIR.TAG":   cacheTag,
		"sub/target/release/thing":  "kept by !",
		"src/main.go":               "package main\n",
		"mine/.turnbackignore":      "build/\n",
		"mine/build/a.txt":          "ignored by the user's rule",
		"nested/build/deep/file.go": "package deep\n",
	})
	s := newStore(t)
	res := snap(t, dir, s, Options{ListIgnored: true})
	got := pathsOf(flatten(t, s, res.Root))
	for _, p := range []string{"build/run.sh", "dist/lib.js", "target2/x", "keep/node_modules/x.js",
		"sub/target/release/thing", "sub/target/CACHEDIR.TAG", "src/main.go", "nested/build/deep/file.go"} {
		if !has(got, p) {
			t.Errorf("%s not captured", p)
		}
	}
	for _, p := range []string{"target", "anyname", "out", "env", "node_modules", "mine/build"} {
		if has(got, p) {
			t.Errorf("%s captured", p)
		}
	}
	var reasons []string
	for _, ig := range res.Stats.Ignored {
		reasons = append(reasons, fmt.Sprintf("%s|%s|%s|%s:%d", ig.Path, ig.Rule, ig.Evidence, ig.File, ig.Line))
	}
	want := []string{
		"anyname|evidence|anyname/CACHEDIR.TAG|:0",
		"env|evidence|env/pyvenv.cfg|:0",
		"mine/build|file||mine/.turnbackignore:1",
		"node_modules|name||:0",
		"out|evidence|out/CMakeCache.txt|:0",
		"target|evidence|target/CACHEDIR.TAG|:0",
	}
	if !slices.Equal(reasons, want) {
		t.Errorf("ignored:\n%s\nwant\n%s", strings.Join(reasons, "\n"), strings.Join(want, "\n"))
	}
}

// TestTrackedNeverSkipped: in a git repository, directories holding
// tracked paths are captured whatever their names and markers, and the
// large-new-directory rule leaves them alone; untracked ones are
// judged as outside git. Also below the repository's top, and in a
// nested repository.
func TestTrackedNeverSkipped(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	treetest.PutAll(t, dir, map[string]string{
		"proj/build/build.go":         "package build\n",
		"proj/dist/app.js":            "1",
		"proj/node_modules/vend/x.js": "committed dependency",
		"proj/target/CACHEDIR.TAG":    cacheTag,
		"proj/target/keep.txt":        "tracked although tagged",
	})
	git(t, dir, "init", "-q")
	git(t, dir, "add", "-A")
	treetest.PutAll(t, dir, map[string]string{
		"proj/web/node_modules/y/z.js": "untracked: skipped",
		"proj/other/CACHEDIR.TAG":      cacheTag,
		"proj/other/x":                 "untracked, tagged: skipped",
	})
	big := map[string]string{}
	for i := range 250 {
		big[fmt.Sprintf("proj/gen/f%03d.go", i)] = "package gen\n"
	}
	treetest.PutAll(t, dir, big)
	// A nested clone with its own index: its tracked node_modules kept.
	nested := dir + "/proj/lib"
	treetest.PutAll(t, nested, map[string]string{"node_modules/m/i.js": "tracked in lib"})
	git(t, nested, "init", "-q")
	git(t, nested, "add", "-A")

	s := newStore(t)
	first := snap(t, dir+"/proj", s, Options{})
	// gen/ is new since first, over the limit: uncaptured while untracked.
	git(t, dir, "add", "proj/gen/f000.go")
	res := snap(t, dir+"/proj", s, Options{Previous: first.Root, LargeDirFiles: 100})
	got := pathsOf(flatten(t, s, res.Root))
	for _, p := range []string{"build/build.go", "dist/app.js", "node_modules/vend/x.js", "target/keep.txt",
		"target/CACHEDIR.TAG", "lib/node_modules/m/i.js", "gen/f249.go"} {
		if !has(got, p) {
			t.Errorf("%s not captured", p)
		}
	}
	for _, p := range []string{"web/node_modules", "other"} {
		if has(got, p) {
			t.Errorf("%s captured", p)
		}
	}
	if len(res.Stats.Uncaptured) != 0 || len(res.Stats.Problems) != 0 {
		t.Errorf("uncaptured %+v problems %+v", res.Stats.Uncaptured, res.Stats.Problems)
	}
}

// TestIndexChangeWalksAgain: an incremental capture whose base was made
// under another index reads the whole tree, so a "git add" that makes
// node_modules tracked is seen though no directory changed.
func TestIndexChangeWalksAgain(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	treetest.PutAll(t, dir, map[string]string{"a.txt": "a", "node_modules/p/x.js": "x"})
	git(t, dir, "init", "-q")
	git(t, dir, "add", "a.txt")
	s := newStore(t)
	idx := &GitIndexes{}
	never := func(string) bool { return false }
	base := snap(t, dir, s, Options{Index: idx})
	if has(pathsOf(flatten(t, s, base.Root)), "node_modules") {
		t.Fatal("untracked node_modules captured")
	}
	same := snap(t, dir, s, Options{Index: idx, Base: base.Root, Dirty: never})
	if same.Root != base.Root || same.Stats.DirsReused == 0 && same.Stats.DirsRead != 0 {
		t.Fatalf("unchanged index: root %v, read %d", same.Root, same.Stats.DirsRead)
	}
	git(t, dir, "add", "-f", "node_modules/p/x.js")
	res := snap(t, dir, s, Options{Index: idx, Base: base.Root, Dirty: never})
	if !has(pathsOf(flatten(t, s, res.Root)), "node_modules/p/x.js") {
		t.Fatal("a directory tracked since the base was not captured")
	}
	// Without Index the caller vouches for Base (the old contract).
	res2 := snap(t, dir, s, Options{Base: base.Root, Dirty: never})
	if res2.Root != base.Root {
		t.Fatal("Base not reused without Index")
	}
	_ = cas.Hash{}
}
