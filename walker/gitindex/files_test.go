package gitindex

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestFileList: random path lists, in index order (with repeated
// stages) and out of it, answer as a map of them does, for every path
// and for near misses (a prefix, one byte more, one byte changed).
func TestFileList(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	names := []string{"a", "b", "build", "go", "x.cfg", "é", "z"}
	for round := range 200 {
		n := rng.IntN(100)
		if round%50 == 0 {
			n = 3000
		}
		var ps []string
		for range n {
			var b strings.Builder
			for d := rng.IntN(4); d >= 0; d-- {
				if b.Len() > 0 {
					b.WriteByte('/')
				}
				b.WriteString(names[rng.IntN(len(names))])
			}
			ps = append(ps, b.String())
		}
		sorted := round%7 != 0
		if sorted {
			slices.Sort(ps)
		}
		var l fileList
		if round%3 != 0 { // else a filter of one word: all pass
			l.init(int64(n) * 80)
		}
		want := map[string]bool{}
		for _, p := range ps {
			l.add([]byte(p))
			want[p] = true
		}
		l.done()
		if sorted != (l.unsorted == nil) && len(want) > 1 && !slices.IsSorted(ps) {
			t.Fatalf("round %d: sorted %v, map %v", round, sorted, l.unsorted != nil)
		}
		for _, p := range ps {
			for _, q := range []string{p, p[:len(p)-1], p + "x", p + "/a", strings.Replace(p, "a", "b", 1)} {
				if l.has(q) != want[q] {
					t.Fatalf("round %d (sorted %v): has(%q) = %v", round, sorted, q, !want[q])
				}
			}
		}
		if l.has("") || l.has("~") {
			t.Fatalf("round %d: has an absent path", round)
		}
		dirs := map[string]bool{"": true, "none": true, "a/none": true}
		for _, p := range ps {
			for d := p; strings.Contains(d, "/"); {
				d = d[:strings.LastIndexByte(d, '/')]
				dirs[d] = true
			}
		}
		for d := range dirs {
			if got, want := string(l.appendChildren([]byte("x"), d)), "x"+children(want, d); got != want {
				t.Fatalf("round %d (sorted %v): children of %q:\n%q\nwant\n%q", round, sorted, d, got, want)
			}
		}
	}
}

// children is fileList.appendChildren of dir in a list of the paths
// in set, the slow way.
func children(set map[string]bool, dir string) string {
	pre := dir + "/"
	if dir == "" {
		pre = ""
	}
	var ps []string
	for p := range set {
		if strings.HasPrefix(p, pre) {
			ps = append(ps, p)
		}
	}
	slices.Sort(ps)
	var b strings.Builder
	last := ""
	for _, p := range ps {
		rest := p[len(pre):]
		if i := strings.IndexByte(rest, '/'); i >= 0 {
			if rest[:i] != last {
				last = rest[:i]
				b.WriteString(last + "/")
			}
			continue
		}
		b.WriteString(rest + "\x00")
	}
	return b.String()
}

// TestSetHasFile: the tracked files of a real index, by every version,
// relative to a prefix; directories and untracked paths are no files.
func TestSetHasFile(t *testing.T) {
	for _, v := range []string{"2", "3", "4"} {
		dir := gitRepo(t, files, v)
		data, err := os.ReadFile(filepath.Join(dir, ".git", "index"))
		if err != nil {
			t.Fatal(err)
		}
		s, err := Build(bytes.NewReader(data), int64(len(data)), false, nil, "")
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			if !s.HasFile(f) {
				t.Errorf("v%s: HasFile(%q) = false", v, f)
			}
		}
		for _, f := range []string{"go", "go/build", "READM", "README/x", "dist", "dist/app.j"} {
			if s.HasFile(f) {
				t.Errorf("v%s: HasFile(%q) = true", v, f)
			}
		}
		sub, err := Build(bytes.NewReader(data), int64(len(data)), false, nil, "go")
		if err != nil {
			t.Fatal(err)
		}
		if !sub.HasFile("build/build.go") || sub.HasFile("go/build/build.go") || sub.HasFile("README") {
			t.Errorf("v%s: prefix go: %v", v, sub.HasFile("build/build.go"))
		}
		var nilSet *Set
		if nilSet.HasFile("README") {
			t.Error("a nil Set has a file")
		}
	}
}

// BenchmarkHasFile looks up paths absent from a list of 100,000 (an
// ignored file's usual answer).
func BenchmarkHasFile(b *testing.B) {
	var l fileList
	var ps []string
	for i := range 100000 {
		ps = append(ps, fmt.Sprintf("src/pkg%03d/sub%02d/file%04d.c", i/1000, i/100%10, i))
	}
	slices.Sort(ps)
	l.init(int64(len(ps)) * 100) // as an index of these paths
	for _, p := range ps {
		l.add([]byte(p))
	}
	l.done()
	absent := make([]string, len(ps))
	for i, p := range ps {
		absent[i] = p + ".o"
	}
	i := 0
	for b.Loop() {
		if l.has(absent[i%len(ps)]) {
			b.Fatal("found")
		}
		i += 7919
	}
	b.ReportMetric(float64(len(l.data)+4*len(l.restarts)+8*len(l.filter))/float64(len(ps)), "bytes/path")
}

// TestSetAppendNamed: the directories holding tracked paths that have
// a built-in name, below a directory, relative to it, sorted; relative
// to a prefix too. A file of such a name, or a name that only starts
// like one, is none.
func TestSetAppendNamed(t *testing.T) {
	dir := gitRepo(t, []string{
		"a.c", "node_modules.js", "node_modules/x.js", "node_modules/p/node_modules/y.js",
		"web/node_modules/z.js", "web/node_modulesx/w", "src/__pycache__/m.pyc",
	}, "2")
	data, err := os.ReadFile(filepath.Join(dir, ".git", "index"))
	if err != nil {
		t.Fatal(err)
	}
	s, err := Build(bytes.NewReader(data), int64(len(data)), false, nil, "")
	if err != nil {
		t.Fatal(err)
	}
	web, err := Build(bytes.NewReader(data), int64(len(data)), false, nil, "web")
	if err != nil {
		t.Fatal(err)
	}
	var none *Set
	for _, c := range []struct {
		s    *Set
		dir  string
		want []string
	}{
		{s, "", []string{"node_modules", "node_modules/p/node_modules", "src/__pycache__", "web/node_modules"}},
		{s, "node_modules", []string{"p/node_modules"}},
		{s, "web", []string{"node_modules"}},
		{s, "we", nil},
		{s, "web/node_modules", nil},
		{web, "", []string{"node_modules"}},
		{none, "", nil},
	} {
		if got := c.s.AppendNamed(nil, c.dir); !slices.Equal(got, c.want) {
			t.Errorf("AppendNamed(%q) = %q, want %q", c.dir, got, c.want)
		}
	}
}
