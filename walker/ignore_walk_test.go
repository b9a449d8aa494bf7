//go:build unix

package walker

import (
	"os"
	"strings"
	"testing"

	"github.com/turnback/turnback/manifest/treetest"
)

// TestIgnoreRules checks which paths a capture sees under ignore files at
// several depths, negations, built-in names and .git in both forms.
func TestIgnoreRules(t *testing.T) {
	t.Parallel()
	files := map[string]string{
		".gitignore":      "*.log\n!keep.log\nlogs/\n!logs/inside.txt\n/rootonly.txt\nsecret*\nout/\n",
		".ignore":         "*.tmp\n",
		".turnbackignore": "!wanted.tmp\nbig/\n",
		"a.log":           "ignored",
		"keep.log":        "kept by negation",
		"x.tmp":           "ignored by .ignore",
		"wanted.tmp":      ".turnbackignore re-includes it over .ignore",
		"rootonly.txt":    "anchored: ignored here only",
		"local.txt":       "kept: sub's rule does not apply up here",
		"secret.key":      "ignored",
		"out":             "a file: the dir-only pattern out/ does not match it",
		"logs/inside.txt": "inside an ignored dir: cannot be re-included",
		"big/blob":        "ignored dir",
		".env":            "a FILE named .env is captured",
		"build":           "a FILE named build is captured",
		".git/HEAD":       "ref: refs/heads/main\n",
		".git/config":     "[core]\n",

		"sub/.gitignore":           "!*.log\nlocal.txt\n",
		"sub/b.log":                "re-included by the deeper file",
		"sub/rootonly.txt":         "kept: /rootonly.txt is anchored at the root",
		"sub/local.txt":            "ignored by sub/.gitignore",
		"sub/out/x":                "ignored: out/ matches a dir at any depth",
		"sub/.git":                 "gitdir: ../.git/worktrees/sub\n", // a .git FILE is ignored too
		"sub/.env/x":               "a dir .env without evidence is captured",
		"sub/deep/.turnbackignore": "!local.txt\n",
		"sub/deep/local.txt":       "re-included by the deepest file",
		"sub/deep2/local.txt":      "ignored by sub/.gitignore",
		"sub/deep2/ok.txt":         "kept",

		"node_modules/pkg/index.js":     "built-in",
		"web/node_modules/pkg/index.js": "built-in at depth",
		".venv/bin/python":              "ignored: a virtual environment",
		".venv/pyvenv.cfg":              "home = /usr/bin",
		"venv/x":                        "ignored: a virtual environment",
		"venv/pyvenv.cfg":               "home = /usr/bin",
		"py/__pycache__/m.pyc":          "built-in",
		"py/m.py":                       "kept",
		"nested/repo/.git/HEAD":         "nested repo's .git",
		"nested/repo/src.go":            "kept",

		"notignore/.gitignore/x": "a DIRECTORY named .gitignore is not an ignore file",
		"notignore/a.txt":        "kept",
		"linked/real":            "*.txt\n",
		"linked/a.txt":           "kept: a symlinked .gitignore is not read",
	}
	dir := t.TempDir()
	for p, data := range files {
		treetest.MustWrite(t, dir, treetest.Tree{p: treetest.File(data, 0o644)})
	}
	if err := os.Symlink("real", abs(dir, "linked/.gitignore")); err != nil {
		t.Fatal(err)
	}
	want := []string{
		".env", ".gitignore", ".ignore", ".turnbackignore", "build", "keep.log", "linked", "linked/.gitignore",
		"linked/a.txt", "linked/real", "local.txt", "nested", "nested/repo", "nested/repo/src.go",
		"notignore", "notignore/.gitignore", "notignore/.gitignore/x", "notignore/a.txt", "out", "py", "py/m.py",
		"sub", "sub/.env", "sub/.env/x", "sub/.gitignore", "sub/b.log", "sub/deep", "sub/deep/.turnbackignore", "sub/deep/local.txt",
		"sub/deep2", "sub/deep2/ok.txt", "sub/rootonly.txt", "wanted.tmp", "web",
	}
	s := newStore(t)
	res := snap(t, dir, s, Options{})
	got := pathsOf(flatten(t, s, res.Root))
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("captured paths:\n  %q\nwant\n  %q", got, want)
	}
	if len(res.Stats.Problems) != 0 {
		t.Errorf("problems: %+v", res.Stats.Problems)
	}
	// Ignored files are not counted, not read.
	var nFiles int64
	for _, p := range want {
		if fi, err := os.Lstat(abs(dir, p)); err == nil && fi.Mode().IsRegular() {
			nFiles++
		}
	}
	if res.Stats.Files != nFiles || res.Stats.HashedFiles != nFiles {
		t.Errorf("files %d, hashed %d; want %d", res.Stats.Files, res.Stats.HashedFiles, nFiles)
	}
}

// TestIgnoredDirsNeverOpened: an ignored directory is not even opened,
// so one that cannot be read causes no problem, neither in the walk nor
// in the file count of the large-new-directory rule.
func TestIgnoredDirsNeverOpened(t *testing.T) {
	if rerunUnprivileged(t) {
		return
	}
	t.Parallel()
	dir := t.TempDir()
	treetest.MustWrite(t, dir, treetest.Tree{".gitignore": treetest.File("private/\n*.secret\n", 0o644)})
	treetest.MustWrite(t, dir, treetest.Tree{"keep.txt": treetest.File("k", 0o644)})
	s := newStore(t)
	first := snap(t, dir, s, Options{})

	locked := []string{"private", "node_modules", ".git", "sub/__pycache__", "fresh/node_modules", "fresh/cache"}
	for _, p := range locked {
		treetest.MustWrite(t, dir, treetest.Tree{p + "/inner.txt": treetest.File("inner", 0o644)})
	}
	treetest.MustWrite(t, dir, treetest.Tree{"x.secret": treetest.File("unreadable and ignored", 0o000)})
	treetest.PutAll(t, dir, map[string]string{
		"sub/ok.txt":       "ok",
		"fresh/.gitignore": "cache/\n",
		"fresh/a.txt":      "a",
	})
	for _, p := range locked {
		chmod(t, dir, p, 0o000)
	}
	t.Cleanup(func() {
		for _, p := range locked {
			os.Chmod(abs(dir, p), 0o755)
		}
	})
	if _, err := os.ReadFile(abs(dir, "x.secret")); err == nil {
		t.Fatal("mode 000 does not stop reads here")
	}
	// fresh/ is new since first: the large-new-directory rule counts it.
	res := snap(t, dir, s, Options{Previous: first.Root, LargeDirFiles: 3})
	if len(res.Stats.Problems) != 0 || len(res.Stats.Uncaptured) != 0 {
		t.Errorf("problems %+v, uncaptured %+v", res.Stats.Problems, res.Stats.Uncaptured)
	}
	got := strings.Join(pathsOf(flatten(t, s, res.Root)), ",")
	if want := ".gitignore,fresh,fresh/.gitignore,fresh/a.txt,keep.txt,sub,sub/ok.txt"; got != want {
		t.Errorf("paths %s, want %s", got, want)
	}
}
