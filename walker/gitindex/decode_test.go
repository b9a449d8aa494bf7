package gitindex

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// gitRepo makes a repository in a temporary folder holding files, added
// to the index, with index version v (git is a fixture tool here only).
func gitRepo(t testing.TB, files []string, v string, extra ...string) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	dir := t.TempDir()
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	// No template: no hooks, nothing Decode reads, fewer files to copy.
	git(append([]string{"init", "-q", "--template="}, extra...)...)
	for _, f := range files {
		p := filepath.Join(dir, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(f), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git("add", "-A")
	git("update-index", "--index-version", v)
	return dir
}

var files = []string{
	"README", "go/build/build.go", "go/build/testdata/x/y.go",
	"cmd/dist/build.go", "cmd/dist/main.go", "dist/app.js",
	"a/very/" + strings.Repeat("long-name/", 40) + "f", // a path over 0xFFF bytes? no: 400
}

func TestDecodeVersions(t *testing.T) {
	for _, v := range []string{"2", "3", "4"} {
		for _, format := range []string{"sha1", "sha256"} {
			t.Run(v+"-"+format, func(t *testing.T) {
				dir := gitRepo(t, files, v, "--object-format="+format)
				data, err := os.ReadFile(filepath.Join(dir, ".git", "index"))
				if err != nil {
					t.Fatal(err)
				}
				var got []string
				err = Decode(bytes.NewReader(data), int64(len(data)), format == "sha256", nil, func(e *Entry) error {
					got = append(got, string(e.Path))
					return nil
				})
				if err != nil {
					t.Fatal(err)
				}
				want := slices.Sorted(slices.Values(files))
				if !slices.Equal(got, want) {
					t.Fatalf("paths %q, want %q", got, want)
				}
				var c Cache
				set, _, err := c.Load(dir, "")
				if err != nil {
					t.Fatal(err)
				}
				for _, d := range []string{"go", "go/build", "go/build/testdata/x", "cmd/dist", "dist", "a/very"} {
					if !set.Has(d) {
						t.Errorf("Has(%q) false", d)
					}
				}
				for _, d := range []string{"", "README", "go/build/build.go", "build", "cmd/dist/main.go"} {
					if set.Has(d) {
						t.Errorf("Has(%q) true", d)
					}
				}
				sub, _, err := c.Load(dir, "go")
				if err != nil {
					t.Fatal(err)
				}
				if !sub.Has("build") || sub.Has("go") || sub.Has("dist") {
					t.Errorf("under go/: %v", sub.dirs)
				}
				// Any flipped byte is refused by the checksum, or by the
				// structure before it.
				for _, i := range []int{5, 30, len(data) / 2, len(data) - 25} {
					bad := bytes.Clone(data)
					bad[i] ^= 0x20
					if err := Decode(bytes.NewReader(bad), int64(len(bad)), format == "sha256", nil, func(*Entry) error { return nil }); !errors.Is(err, ErrFormat) {
						t.Errorf("byte %d flipped: %v", i, err)
					}
				}
			})
		}
	}
}

// TestDecodeExtended: version 3's extended flags (intent-to-add) and
// extensions (the cached tree after a commit) are read past.
func TestDecodeExtended(t *testing.T) {
	dir := gitRepo(t, []string{"build/x.c"}, "3")
	if err := os.WriteFile(filepath.Join(dir, "new.c"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"add", "-N", "new.c"}, {"-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "x"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%v: %s", err, out)
		}
	}
	set, _, err := (&Cache{}).Load(dir, "")
	if err != nil {
		t.Fatal(err)
	}
	if !set.Has("build") || set.Len() != 1 {
		t.Fatalf("set %v", set.dirs)
	}
}

func TestCacheStamp(t *testing.T) {
	dir := gitRepo(t, []string{"a/x"}, "2")
	var c Cache
	s1, st, err := c.Load(dir, "")
	if err != nil {
		t.Fatal(err)
	}
	s2, _, _ := c.Load(dir, "")
	if s1 != s2 || !Current([]Stamp{st}) {
		t.Fatal("an unchanged index was read again or not current")
	}
	os.MkdirAll(filepath.Join(dir, "b"), 0o755)
	os.WriteFile(filepath.Join(dir, "b", "y"), nil, 0o644)
	cmd := exec.Command("git", "add", "b/y")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if Current([]Stamp{st}) {
		t.Fatal("a rewritten index is current")
	}
	s3, _, _ := c.Load(dir, "")
	if !s3.Has("b") {
		t.Fatal("the rewritten index was not read again")
	}
}

func TestGitDirFile(t *testing.T) {
	dir := gitRepo(t, []string{"build/x"}, "4")
	wt := t.TempDir()
	os.WriteFile(filepath.Join(wt, ".git"), []byte("gitdir: "+filepath.Join(dir, ".git")+"\n"), 0o644)
	top, prefix, ok := FindTop(filepath.Join(wt, "sub"))
	if !ok || top != wt || prefix != "sub" {
		t.Fatalf("FindTop: %q %q %v", top, prefix, ok)
	}
	set, _, err := (&Cache{}).Load(wt, "")
	if err != nil || !set.Has("build") {
		t.Fatalf("through a .git file: %v %v", set, err)
	}
}
