//go:build unix

package walker

import (
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/turnback/turnback/manifest/treetest"
)

// TestForcedCaptured: what git tracks is captured though an ignore
// file's pattern matches it ("git add -f"): a file, a file in an
// ignored directory (and the directory, for it alone: its untracked
// entries stay skipped, whatever ignore files inside say), also in a
// nested repository. Stats.Ignored names the pattern that skipped each
// untracked one, and the Ignorer (a watcher's) agrees with the capture
// on every path.
func TestForcedCaptured(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	treetest.PutAll(t, dir, map[string]string{
		".gitignore":             "*.cfg\nbuild/\ngen/\n",
		"a.cfg":                  "tracked",
		"b.cfg":                  "untracked",
		"src/c.cfg":              "tracked",
		"src/d.cfg":              "untracked",
		"build/keep.txt":         "tracked",
		"build/other.o":          "untracked",
		"build/.gitignore":       "!*\n",
		"build/sub/k.o":          "tracked",
		"build/sub/l.o":          "untracked",
		"build/gen2/m.o":         "untracked",
		"gen/x":                  "untracked",
		"lib/.gitignore":         "*.o\n",
		"lib/n.o":                "tracked in lib's own repository",
		"lib/p.o":                "untracked",
		"lib/node_modules/q.js":  "untracked",
		"lib/vendor/.gitignore":  "*\n",
		"lib/vendor/tracked.txt": "tracked in lib",
	})
	git(t, dir, "init", "-q")
	git(t, dir, "add", "-f", ".gitignore", "a.cfg", "src/c.cfg", "build/keep.txt", "build/sub/k.o")
	git(t, dir+"/lib", "init", "-q")
	git(t, dir+"/lib", "add", "-f", "n.o", ".gitignore", "vendor/tracked.txt")
	s := newStore(t)
	res := snap(t, dir, s, Options{ListIgnored: true})
	got := pathsOf(flatten(t, s, res.Root))
	want := []string{".gitignore", "a.cfg", "build", "build/keep.txt", "build/sub", "build/sub/k.o",
		"lib", "lib/.gitignore", "lib/n.o", "lib/vendor", "lib/vendor/tracked.txt", "src", "src/c.cfg"}
	if !slices.Equal(got, want) {
		t.Errorf("captured:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	var reasons []string
	for _, ig := range res.Stats.Ignored {
		reasons = append(reasons, fmt.Sprintf("%s|%s|%s:%d", ig.Path, ig.Rule, ig.File, ig.Line))
	}
	wantR := []string{
		"b.cfg|file|.gitignore:1",
		"build/.gitignore|file|.gitignore:2",
		"build/gen2|file|.gitignore:2",
		"build/other.o|file|.gitignore:2",
		"build/sub/l.o|file|.gitignore:2",
		"gen|file|.gitignore:3",
		"lib/node_modules|name|:0",
		"lib/p.o|file|lib/.gitignore:1",
		"lib/vendor/.gitignore|file|lib/vendor/.gitignore:1",
		"src/d.cfg|file|.gitignore:1",
	}
	if !slices.Equal(reasons, wantR) {
		t.Errorf("ignored:\n%s\nwant\n%s", strings.Join(reasons, "\n"), strings.Join(wantR, "\n"))
	}
	// The Ignorer, asked path by path, agrees.
	ig := NewIgnorer(openRoot(t, dir))
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == dir {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		if d.Name() == ".git" {
			return fs.SkipDir
		}
		if ignored, captured := ig.Ignored(rel, d.IsDir()), slices.Contains(got, rel); ignored == captured {
			inIgnored := false
			for q := filepath.ToSlash(filepath.Dir(rel)); q != "."; q = filepath.ToSlash(filepath.Dir(q)) {
				inIgnored = inIgnored || !slices.Contains(got, q)
			}
			if !inIgnored {
				t.Errorf("Ignorer: %s ignored %v, captured %v", rel, ignored, captured)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestForcedIndexChange: "git add -f" since the base, with no event in
// the folder, makes an incremental capture read the file; "git rm
// --cached" makes it ignored again.
func TestForcedIndexChange(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	treetest.PutAll(t, dir, map[string]string{".gitignore": "*.cfg\n", "a.cfg": "a", "b": "b"})
	git(t, dir, "init", "-q")
	git(t, dir, "add", "b")
	s := newStore(t)
	idx := &GitIndexes{}
	never := func(string) bool { return false }
	base := snap(t, dir, s, Options{Index: idx})
	if has(pathsOf(flatten(t, s, base.Root)), "a.cfg") {
		t.Fatal("untracked a.cfg captured")
	}
	git(t, dir, "add", "-f", "a.cfg")
	added := snap(t, dir, s, Options{Index: idx, Base: base.Root, Dirty: never})
	if !has(pathsOf(flatten(t, s, added.Root)), "a.cfg") {
		t.Fatal("a.cfg, tracked since the base, not captured")
	}
	git(t, dir, "rm", "-q", "--cached", "a.cfg")
	removed := snap(t, dir, s, Options{Index: idx, Base: added.Root, Dirty: never})
	if removed.Root != base.Root {
		t.Fatal("a.cfg, untracked again, still captured")
	}
}

// TestForcedHostileNames: tracked files whose names hold a newline,
// invalid UTF-8, glob characters or a backslash are captured though a
// pattern ignores them; their untracked neighbours are not.
func TestForcedHostileNames(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	names := []string{"a\nb.cfg", "\xff.cfg", "[x].cfg", "sp ace.cfg", `back\slash.cfg`, "*.cfg"}
	files := map[string]string{".gitignore": "*.cfg\n"}
	for _, n := range names {
		files[n] = "tracked"
		files["d/"+n] = "untracked"
	}
	treetest.PutAll(t, dir, files)
	git(t, dir, "init", "-q")
	args := []string{"add", "-f", "--"}
	for _, n := range names {
		args = append(args, ":(literal)"+n)
	}
	git(t, dir, args...)
	s := newStore(t)
	got := pathsOf(flatten(t, s, snap(t, dir, s, Options{}).Root))
	want := append([]string{".gitignore", "d"}, names...)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("captured %q, want %q", got, want)
	}
}
