//go:build unix

package walker

import (
	"math/rand/v2"
	"os"
	"os/exec"
	"path"
	"slices"
	"strings"
	"testing"

	"github.com/turnback/turnback/internal/testtier"
	"github.com/turnback/turnback/manifest"
	"github.com/turnback/turnback/manifest/treetest"
)

// TestForcedRandomAgainstGit: random trees with random .gitignore
// files, a random part of the files added with "git add -f": the files
// a capture keeps are git's (tracked, or untracked and not ignored:
// git ls-files, and ls-files --others --exclude-standard), and the
// Ignorer, path by path, agrees. Names avoid turnback's own rules.
func TestForcedRandomAgainstGit(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	names := []string{"a", "b", "c.cfg", "d.o", "e", "f.txt"}
	pats := []string{"*.cfg", "*.o", "b/", "/a", "c*", "!d.o", "a/**/e", "e/", "*", "!*/", "!f.txt", "b", "**/a/f.txt"}
	rounds := 25
	if testtier.Short() {
		rounds = 8
	}
	for round := range rounds {
		rng := rand.New(rand.NewPCG(uint64(round), 7))
		dir := t.TempDir()
		files := map[string]string{}
		var all []string
		for range 40 {
			var parts []string
			for d := rng.IntN(4); d >= 0; d-- {
				parts = append(parts, names[rng.IntN(len(names))])
			}
			p := strings.Join(parts, "/")
			if clash(files, p) {
				continue
			}
			files[p] = p
			all = append(all, p)
		}
		for _, d := range []string{"", "a/", "b/", "e/"} {
			if rng.IntN(2) == 0 || clash(files, d+".gitignore") {
				continue
			}
			var lines []string
			for n := rng.IntN(4); n >= 0; n-- {
				lines = append(lines, pats[rng.IntN(len(pats))])
			}
			files[d+".gitignore"] = strings.Join(lines, "\n") + "\n"
		}
		treetest.PutAll(t, dir, files)
		git(t, dir, "init", "-q")
		add := []string{"add", "-f", "--"}
		for _, p := range all {
			if rng.IntN(3) == 0 {
				add = append(add, ":(literal)"+p)
			}
		}
		if len(add) > 3 {
			git(t, dir, add...)
		}
		want := gitFiles(t, dir)
		s := newStore(t)
		var got []string
		for p, e := range flatten(t, s, snap(t, dir, s, Options{}).Root) {
			if e.Kind != manifest.KindDir {
				got = append(got, p)
			}
		}
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Fatalf("round %d: captured\n%q\ngit's\n%q\nfiles %q", round, got, want, files)
		}
		ig := NewIgnorer(openRoot(t, dir))
		for p := range files {
			if ignored := ignoredPath(ig, p); ignored == slices.Contains(want, p) {
				t.Fatalf("round %d: Ignorer: %s ignored %v\nfiles %q", round, p, ignored, files)
			}
		}
	}
}

// clash reports whether p, or a parent of it, is a file of files, or p
// a parent of one.
func clash(files map[string]string, p string) bool {
	for q := range files {
		if q == p || strings.HasPrefix(q, p+"/") || strings.HasPrefix(p, q+"/") {
			return true
		}
	}
	return false
}

// ignoredPath asks ig about p and each of its parents.
func ignoredPath(ig *Ignorer, p string) bool {
	for d := path.Dir(p); d != "."; d = path.Dir(d) {
		if ig.Ignored(d, true) {
			return true
		}
	}
	return ig.Ignored(p, false)
}

// gitFiles returns the files git tracks or sees untracked and not
// ignored, sorted.
func gitFiles(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	for _, args := range [][]string{{"ls-files", "-z"}, {"ls-files", "-z", "--others", "--exclude-standard"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir) // as git()
		b, err := cmd.Output()
		if err != nil {
			t.Fatalf("git %v: %v", args, err)
		}
		for _, p := range strings.Split(string(b), "\x00") {
			if p != "" && !slices.Contains(out, p) {
				out = append(out, p)
			}
		}
	}
	slices.Sort(out)
	return out
}
