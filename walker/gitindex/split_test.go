package gitindex

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// runGit runs git in dir with stdin, failing t on an error.
func runGit(t testing.TB, dir, stdin string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir)
	cmd.Stdin = strings.NewReader(stdin)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// splitRepo makes a repository holding files, with index version v,
// split: its entries all in the shared index. Later writes keep the
// shared index and record their changes in .git/index.
func splitRepo(t testing.TB, v, format string) string {
	t.Helper()
	dir := gitRepo(t, splitFiles, v, "--object-format="+format)
	runGit(t, dir, "", "config", "core.splitIndex", "true")
	runGit(t, dir, "", "config", "splitIndex.maxPercentChange", "100")
	runGit(t, dir, "", "update-index", "--split-index")
	return dir
}

var splitFiles = []string{"a.txt", "b.txt", "dist/app.js", "node_modules/x.js", "src/m.go", "src/z.go"}

// lsFiles is `git ls-files --stage` in dir: "mode stage path" each.
func lsFiles(t testing.TB, dir string) []string {
	t.Helper()
	var got []string
	for _, rec := range strings.Split(runGit(t, dir, "", "ls-files", "--stage", "-z"), "\x00") {
		if rec == "" {
			continue
		}
		meta, path, _ := strings.Cut(rec, "\t")
		f := strings.Fields(meta)
		got = append(got, f[0]+" "+f[2]+" "+path)
	}
	return got
}

// decoded is what Decode reports of dir's index, as lsFiles.
func decoded(dir string, sha256 bool) ([]string, error) {
	gitDir := filepath.Join(dir, ".git")
	data, err := os.ReadFile(filepath.Join(gitDir, "index"))
	if err != nil {
		return nil, err
	}
	var got []string
	err = Decode(bytes.NewReader(data), int64(len(data)), sha256, os.DirFS(gitDir), func(e *Entry) error {
		got = append(got, fmt.Sprintf("%06o %d %s", e.Mode, e.Stage, e.Path))
		return nil
	})
	return got, err
}

// linkCounts returns how many shared entries dir's split index
// replaces and deletes, and how many entries it adds.
func linkCounts(t *testing.T, dir string, sha256 bool) (rep, del, add uint32) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, ".git", "index"))
	if err != nil {
		t.Fatal(err)
	}
	lay, err := scan(bytes.NewReader(data), int64(len(data)), sha256)
	if err != nil || lay.link == nil {
		t.Fatalf("not a split index: %v", err)
	}
	rep, err = countBits(lay.link.rep.iter(bytes.NewReader(data)), 1<<31)
	if err != nil {
		t.Fatal(err)
	}
	if del, err = countBits(lay.link.del.iter(bytes.NewReader(data)), 1<<31); err != nil {
		t.Fatal(err)
	}
	return rep, del, lay.count - rep
}

// TestDecodeSplit: split indexes as git writes them, after changes of
// every kind, read as git reads them: the entries Decode reports are
// those `git ls-files --stage` lists, and the Set Load returns tracks
// them.
func TestDecodeSplit(t *testing.T) {
	write := func(t *testing.T, dir, name, data string) {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	conflict := func(t *testing.T, dir, name string) {
		oid := strings.TrimSpace(runGit(t, dir, "", "hash-object", "-w", name))
		zero := strings.Repeat("0", len(oid))
		runGit(t, dir, "0 "+zero+"\t"+name+"\n100644 "+oid+" 1\t"+name+"\n100644 "+oid+" 3\t"+name+"\n",
			"update-index", "--index-info")
	}
	cases := []struct {
		name          string
		change        func(t *testing.T, dir string)
		rep, del, add bool // what the split index must hold
	}{
		{"unchanged", func(*testing.T, string) {}, false, false, false},
		{"replaced", func(t *testing.T, dir string) {
			write(t, dir, "node_modules/x.js", "changed")
			runGit(t, dir, "", "add", "node_modules/x.js")
		}, true, false, false},
		{"deleted", func(t *testing.T, dir string) {
			runGit(t, dir, "", "rm", "-q", "--cached", "b.txt", "src/z.go")
		}, false, true, false},
		{"added", func(t *testing.T, dir string) {
			write(t, dir, "c.txt", "c")
			write(t, dir, "dist/zz/new.js", "new")
			runGit(t, dir, "", "add", "c.txt", "dist/zz/new.js")
		}, false, false, true},
		{"intent to add", func(t *testing.T, dir string) {
			write(t, dir, "src/n.go", "n")
			runGit(t, dir, "", "add", "-N", "src/n.go")
		}, false, false, true},
		{"all", func(t *testing.T, dir string) {
			write(t, dir, "a.txt", "changed")
			write(t, dir, "0first", "new")
			write(t, dir, "zlast", "new")
			runGit(t, dir, "", "add", "a.txt", "0first", "zlast")
			runGit(t, dir, "", "rm", "-q", "--cached", "src/m.go")
		}, true, true, true},
		{"deleted and added back", func(t *testing.T, dir string) {
			runGit(t, dir, "", "rm", "-q", "--cached", "dist/app.js")
			runGit(t, dir, "", "add", "-f", "dist/app.js")
		}, false, true, true},
		{"conflict", func(t *testing.T, dir string) {
			conflict(t, dir, "src/m.go")
		}, false, true, true},
		{"conflict resolved", func(t *testing.T, dir string) {
			conflict(t, dir, "src/m.go")
			write(t, dir, "src/m.go", "resolved")
			runGit(t, dir, "", "add", "src/m.go")
		}, false, true, true},
	}
	for _, format := range []string{"sha1", "sha256"} {
		for _, v := range []string{"2", "4"} {
			// The cases change copies of one repository: six git runs
			// fewer each.
			base := splitRepo(t, v, format)
			for _, c := range cases {
				t.Run(format+"/v"+v+"/"+c.name, func(t *testing.T) {
					t.Parallel()
					dir := t.TempDir()
					if err := os.CopyFS(dir, os.DirFS(base)); err != nil {
						t.Fatal(err)
					}
					c.change(t, dir)
					rep, del, add := linkCounts(t, dir, format == "sha256")
					if c.rep && rep == 0 || c.del && del == 0 || c.add && add == 0 {
						t.Fatalf("split index replaces %d, deletes %d, adds %d", rep, del, add)
					}
					want := lsFiles(t, dir)
					got, err := decoded(dir, format == "sha256")
					if err != nil {
						t.Fatal(err)
					}
					if !slices.Equal(got, want) {
						t.Fatalf("decoded\n%q\ngit ls-files --stage\n%q", got, want)
					}
					set, _, err := (&Cache{}).Load(dir, "")
					if err != nil {
						t.Fatal(err)
					}
					for _, l := range want {
						if p := strings.SplitN(l, " ", 3)[2]; !set.HasFile(p) {
							t.Errorf("HasFile(%q) false", p)
						}
					}
				})
			}
		}
	}
}

// TestDecodeSplitDamaged: a split index whose shared index is missing,
// damaged or another is unreadable, as Load reports it.
func TestDecodeSplitDamaged(t *testing.T) {
	cases := []struct {
		name   string
		damage func(t *testing.T, shared string)
		is     error
	}{
		{"missing", func(t *testing.T, shared string) {
			if err := os.Remove(shared); err != nil {
				t.Fatal(err)
			}
		}, fs.ErrNotExist},
		{"byte flipped", func(t *testing.T, shared string) {
			flip(t, shared, 40)
		}, ErrFormat},
		{"checksum flipped", func(t *testing.T, shared string) {
			flip(t, shared, -1)
		}, ErrFormat},
		{"truncated", func(t *testing.T, shared string) {
			if err := os.Truncate(shared, 30); err != nil {
				t.Fatal(err)
			}
		}, ErrFormat},
		{"another index", func(t *testing.T, shared string) {
			other := filepath.Join(gitRepo(t, []string{"x"}, "2"), ".git", "index")
			if err := os.Rename(other, shared); err != nil {
				t.Fatal(err)
			}
		}, ErrFormat},
		{"a directory", func(t *testing.T, shared string) {
			if err := os.Remove(shared); err != nil {
				t.Fatal(err)
			}
			if err := os.Mkdir(shared, 0o755); err != nil {
				t.Fatal(err)
			}
		}, ErrFormat},
	}
	base := splitRepo(t, "2", "sha1") // each case damages a copy
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			if err := os.CopyFS(dir, os.DirFS(base)); err != nil {
				t.Fatal(err)
			}
			shared, err := filepath.Glob(filepath.Join(dir, ".git", "sharedindex.*"))
			if err != nil || len(shared) != 1 {
				t.Fatalf("shared indexes %q: %v", shared, err)
			}
			c.damage(t, shared[0])
			if _, _, err := (&Cache{}).Load(dir, ""); !errors.Is(err, c.is) || !errors.Is(err, ErrFormat) {
				t.Fatalf("Load: %v", err)
			}
			data, err := os.ReadFile(filepath.Join(dir, ".git", "index"))
			if err != nil {
				t.Fatal(err)
			}
			if err := Decode(bytes.NewReader(data), int64(len(data)), false, nil, func(*Entry) error { return nil }); !errors.Is(err, ErrFormat) {
				t.Fatalf("Decode without a git directory: %v", err)
			}
		})
	}
}

// flip flips a bit of file name's byte i (from the end if negative).
func flip(t *testing.T, name string, i int) {
	t.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	if i < 0 {
		i += len(data)
	}
	data[i] ^= 1
	if err := os.WriteFile(name, data, 0o644); err != nil {
		t.Fatal(err)
	}
}
