package turnback_test

import (
	"context"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/turnback/turnback"
	"github.com/turnback/turnback/manifest/treetest"
)

const cacheDirTag = "Signature: 8a477f597d28d172789f06886806bc55\n"

func runGit(t *testing.T, dir string, args ...string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git binary (a fixture tool only)")
	}
	cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@t"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// srcTree reads dir, every .git directory apart.
func srcTree(t *testing.T, dir string) treetest.Tree {
	t.Helper()
	return treetest.MustRead(t, dir, treetest.SkipFunc(func(rel string) bool { return path.Base(rel) == ".git" }))
}

// editTurn snaps dir, applies edit, ends the turn and undoes it.
func editTurn(t *testing.T, dir string, edit func()) (*turnback.SnapResult, *turnback.RestoreResult) {
	t.Helper()
	ctx := context.Background()
	repo, err := turnback.Open(ctx, dir, turnback.Options{Store: filepath.Join(t.TempDir(), "store"), LockWait: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer repo.Close()
	if _, err := repo.Snap(ctx, "agent edits"); err != nil {
		t.Fatal(err)
	}
	edit()
	end, err := repo.End(ctx)
	if err != nil {
		t.Fatal(err)
	}
	res, err := repo.Undo(ctx, 1, turnback.UndoOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return end, res
}

// TestUndoTrackedBuildDist: in a git repository, a turn's edits under
// tracked build/, dist/ and a committed node_modules/ are undone byte
// for byte; an untracked target/ with a cache directory tag is skipped
// (left as the turn left it).
func TestUndoTrackedBuildDist(t *testing.T) {
	dir := t.TempDir()
	treetest.PutAll(t, dir, map[string]string{
		"build/build.go":         "package build\n",
		"build/run.sh":           "#!/bin/sh\n",
		"dist/app.js":            "console.log(1)\n",
		"node_modules/vend/x.js": "module.exports = 1\n",
		"main.go":                "package main\n",
	})
	runGit(t, dir, "init", "-q")
	runGit(t, dir, "add", "-A")
	runGit(t, dir, "commit", "-qm", "init")
	treetest.PutAll(t, dir, map[string]string{"target/CACHEDIR.TAG": cacheDirTag, "target/debug/app": "v1"})
	before := srcTree(t, dir)
	end, res := editTurn(t, dir, func() {
		treetest.PutAll(t, dir, map[string]string{
			"build/build.go":         "package build // edited\n",
			"build/new.go":           "package build\n",
			"dist/app.js":            "console.log(2)\n",
			"node_modules/vend/x.js": "module.exports = 2\n",
			"target/debug/app":       "v2",
		})
		os.Remove(filepath.Join(dir, "build", "run.sh"))
	})
	if end.Dropped {
		t.Fatal("the turn was dropped")
	}
	if len(res.Conflicts) != 0 {
		t.Fatalf("conflicts %+v", res.Conflicts)
	}
	// skipped: not the turn's to undo
	want := before.With(treetest.Tree{"target/debug/app": treetest.File("v2", 0o644)})
	treetest.Check(t, "after undo", srcTree(t, dir), want)
}

// TestUndoPlainBuild: outside git, a small hand-written build/ is
// captured and its edit undone; a target/ with CACHEDIR.TAG is not.
func TestUndoPlainBuild(t *testing.T) {
	dir := t.TempDir()
	treetest.PutAll(t, dir, map[string]string{
		"build/run.sh":        "#!/bin/sh\necho one\n",
		"target/CACHEDIR.TAG": cacheDirTag,
		"target/out.bin":      "1",
	})
	before := srcTree(t, dir)
	_, _ = editTurn(t, dir, func() {
		treetest.PutAll(t, dir, map[string]string{"build/run.sh": "#!/bin/sh\necho two\n", "target/out.bin": "2"})
	})
	before["target/out.bin"] = treetest.File("2", 0o644)
	treetest.Check(t, "after undo", srcTree(t, dir), before)
}

// TestUndoGoSourceTree: the Go distribution's go/build and cmd/dist
// (and cmd/vendor/golang.org/x/build when present), copied with their
// neighbours, with and without a git index: an agent's edits of
// go/build/build.go and cmd/dist/build.go are undone.
func TestUndoGoSourceTree(t *testing.T) {
	src := filepath.Join(runtime.GOROOT(), "src")
	if _, err := os.Stat(filepath.Join(src, "go", "build", "build.go")); err != nil {
		t.Skip("no Go source tree")
	}
	for _, withGit := range []bool{false, true} {
		dir := t.TempDir()
		for _, sub := range []string{"go/build", "cmd/dist", "go/token"} {
			copyDir(t, filepath.Join(src, filepath.FromSlash(sub)), filepath.Join(dir, filepath.FromSlash(sub)))
		}
		if withGit {
			runGit(t, dir, "init", "-q")
			runGit(t, dir, "add", "-A")
		}
		before := srcTree(t, dir)
		end, _ := editTurn(t, dir, func() {
			for _, p := range []string{"go/build/build.go", "cmd/dist/build.go"} {
				f, err := os.OpenFile(filepath.Join(dir, filepath.FromSlash(p)), os.O_APPEND|os.O_WRONLY, 0)
				if err != nil {
					t.Fatal(err)
				}
				f.WriteString("\n// an agent's edit\n")
				f.Close()
			}
		})
		if end.Dropped {
			t.Fatalf("git %v: the turn was dropped", withGit)
		}
		treetest.Check(t, "after undo", srcTree(t, dir), before)
	}
}

func copyDir(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.WalkDir(from, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		dst := filepath.Join(to, rel)
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		if !d.Type().IsRegular() || strings.HasSuffix(p, ".a") {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}
