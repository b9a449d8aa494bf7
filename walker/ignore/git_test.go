package ignore

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// These tests use git only as an oracle: they build a scratch repository,
// ask "git check-ignore --no-index -v -n" about many paths and compare its
// answers with the package's. They are skipped when git is not installed.

// gitVerdict is git's answer for one path: the ignore file, line and
// pattern of the match ("" and 0 when nothing matched).
type gitVerdict struct {
	source  string
	line    int
	pattern string
}

func (v gitVerdict) ignored() bool {
	return v.pattern != "" && !strings.HasPrefix(v.pattern, "!")
}

// gitRepo is a scratch repository with a git that sees no user or system
// configuration.
type gitRepo struct {
	dir string
	env []string
}

func newGitRepo(t *testing.T) *gitRepo {
	t.Helper()
	t.Parallel()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	tmp := t.TempDir()
	home := filepath.Join(tmp, "home")
	dir := filepath.Join(tmp, "repo")
	for _, d := range []string{home, dir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GIT_") && !strings.HasPrefix(kv, "HOME=") &&
			!strings.HasPrefix(kv, "XDG_CONFIG_HOME=") {
			env = append(env, kv)
		}
	}
	env = append(env, "HOME="+home, "XDG_CONFIG_HOME="+home, "GIT_CONFIG_NOSYSTEM=1",
		"GIT_CONFIG_GLOBAL="+filepath.Join(home, "gitconfig"))
	g := &gitRepo{dir: dir, env: env}
	cmd := exec.Command("git", "init", "-q", ".")
	cmd.Dir, cmd.Env = dir, env
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Skipf("git init failed: %v: %s", err, out)
	}
	// Make sure .git/info/exclude adds nothing.
	_ = os.WriteFile(filepath.Join(dir, ".git", "info", "exclude"), nil, 0o644)
	return g
}

// write creates the file rel (and its parents) with data.
func (g *gitRepo) write(t *testing.T, rel string, data []byte) {
	t.Helper()
	p := filepath.Join(g.dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func (g *gitRepo) mkdir(t *testing.T, rel string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(g.dir, filepath.FromSlash(rel)), 0o755); err != nil {
		t.Fatal(err)
	}
}

// checkIgnore asks git about paths (relative to the repository root).
func (g *gitRepo) checkIgnore(t *testing.T, paths []string) map[string]gitVerdict {
	t.Helper()
	var in bytes.Buffer
	for _, p := range paths {
		in.WriteString(p)
		in.WriteByte(0)
	}
	empty := filepath.Join(g.dir, ".git", "empty-excludes")
	_ = os.WriteFile(empty, nil, 0o644)
	cmd := exec.Command("git", "-c", "core.excludesFile="+empty, "-c", "core.ignoreCase=false",
		"check-ignore", "--no-index", "-v", "-n", "-z", "--stdin")
	cmd.Dir, cmd.Env = g.dir, g.env
	cmd.Stdin = &in
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
			t.Fatalf("git check-ignore: %v: %s", err, stderr.String())
		}
	}
	fields := strings.Split(string(out), "\x00")
	if len(fields) > 0 && fields[len(fields)-1] == "" {
		fields = fields[:len(fields)-1]
	}
	if len(fields)%4 != 0 {
		t.Fatalf("git check-ignore: unexpected output %q", out)
	}
	res := make(map[string]gitVerdict, len(paths))
	for i := 0; i < len(fields); i += 4 {
		v := gitVerdict{source: fields[i], pattern: fields[i+2]}
		if fields[i+1] != "" {
			n, err := strconv.Atoi(fields[i+1])
			if err != nil {
				t.Fatalf("git check-ignore: bad line number %q", fields[i+1])
			}
			v.line = n
		}
		res[fields[i+3]] = v
	}
	if len(res) != len(paths) {
		t.Fatalf("git check-ignore answered %d of %d paths", len(res), len(paths))
	}
	return res
}

// tree is a set of paths (relative to the repository root) with their
// kinds, and the ignore files in it.
type tree struct {
	isDir map[string]bool
	rules map[string]*Rules // by directory
	raw   map[string]string // ignore file contents, by directory
}

// add records rel as a file or directory and its parents as directories.
// It refuses paths that clash with what is there.
func (tr *tree) add(rel string, dir bool) bool {
	parts := strings.Split(rel, "/")
	for i := 1; i < len(parts); i++ {
		if d, ok := tr.isDir[strings.Join(parts[:i], "/")]; ok && !d {
			return false
		}
	}
	if d, ok := tr.isDir[rel]; ok && d != dir {
		return false
	}
	for i := 1; i < len(parts); i++ {
		tr.isDir[strings.Join(parts[:i], "/")] = true
	}
	tr.isDir[rel] = dir
	return true
}

// askGit makes tr's directories in g and asks git check-ignore about
// every path of tr (files need not exist: git takes a missing path for a
// file); it returns the paths sorted and git's answers.
func (tr *tree) askGit(t *testing.T, g *gitRepo) ([]string, map[string]gitVerdict) {
	t.Helper()
	var queries []string
	for p, dir := range tr.isDir {
		if dir {
			g.mkdir(t, p)
		}
		queries = append(queries, p)
	}
	sort.Strings(queries)
	return queries, g.checkIgnore(t, queries)
}

// walk judges rel the way a walker using Matcher does: each ancestor
// directory is checked with the rules of the directories above it, and
// the walk stops at the first ignored one. It returns whether rel is
// ignored, and, when no ancestor is, the ignore file and line that
// decided (or "" and 0).
func (tr *tree) walk(rel string) (ignored bool, source string, line int) {
	parts := strings.Split(rel, "/")
	m := New().Push(tr.rules[""])
	for i := range parts {
		cur := strings.Join(parts[:i+1], "/")
		dir := tr.isDir[cur]
		if i < len(parts)-1 {
			if m.Ignored(cur, true) {
				return true, "", -1
			}
			m = m.Push(tr.rules[cur])
			continue
		}
		ignored = m.Ignored(cur, dir)
		// Find which line decided, for a finer comparison with git.
		for f := m; f != nil; f = f.parent {
			for j := len(f.rules) - 1; j >= 0; j-- {
				r := f.rules[j]
				if k := r.match(cur, dir); k >= 0 {
					src := ".gitignore"
					if r.Base != "" {
						src = r.Base + "/.gitignore"
					}
					return ignored, src, int(r.pats[k].line)
				}
			}
		}
		return ignored, "", 0
	}
	return false, "", 0
}

// Pieces for generated patterns and paths. Path names avoid the built-in
// names, which git knows nothing about.
var (
	genComps = []string{
		"a", "b", "ab", "a*", "*b", "*", "**", "?", "?b", "a?", "[ab]", "[!a]", "[^b]",
		"[a-c]", "[]a]", "[[:alpha:]]", "[[:digit:]]*", "\\*", "a\\?", "\\[ab]", "a**",
		"**b", "a*b*", "*a*", "x", "[x-z]*", "a b", "é*", "[[:space:]]*", "\\#a", "\\!a",
		"#a", "a*b", "*.c", "[a-]", "[!]a]",
	}
	genLeads  = []string{"", "", "", "/", "**/", "!", "!", "!/", "!**/", "\\!", "\\#"}
	genTrails = []string{"", "", "", "/", "/**", "/*", " ", "\\ ", "  ", "/ ", "/**/", "\t"}
	genNames  = []string{
		"a", "b", "ab", "ba", "abc", "x", "a b", "*", "a*b", "?", "[ab]", "#a", "!a",
		"1", "é", "éa", "A", "aXb", "a.c", "bb", "a ", " ", "xyz", "]a", "a-", "aab", "a\tb",
	}
)

func genPattern(rnd *rand.Rand) string {
	var sb strings.Builder
	sb.WriteString(genLeads[rnd.IntN(len(genLeads))])
	n := 1 + rnd.IntN(3)
	for i := range n {
		if i > 0 {
			sb.WriteByte('/')
		}
		sb.WriteString(genComps[rnd.IntN(len(genComps))])
	}
	sb.WriteString(genTrails[rnd.IntN(len(genTrails))])
	return sb.String()
}

func genPath(rnd *rand.Rand) string {
	n := 1 + rnd.IntN(3)
	parts := make([]string, n)
	for i := range parts {
		parts[i] = genNames[rnd.IntN(len(genNames))]
	}
	return strings.Join(parts, "/")
}

// TestGitCrossCheck compares Matcher with git on generated ignore files
// (one or two levels deep) and trees of files and directories.
func TestGitCrossCheck(t *testing.T) {
	g := newGitRepo(t)
	rnd := rand.New(rand.NewPCG(1, 2))
	tr := &tree{isDir: map[string]bool{}, rules: map[string]*Rules{}, raw: map[string]string{}}
	const cases = 150
	for c := range cases {
		dir := fmt.Sprintf("c%03d", c)
		var lines []string
		if rnd.IntN(3) == 0 {
			lines = append(lines, []string{"*", "a*", "*b", "**/a", "?"}[rnd.IntN(5)])
		}
		for range 1 + rnd.IntN(3) {
			lines = append(lines, genPattern(rnd))
		}
		data := []byte(strings.Join(lines, "\n") + "\n")
		g.write(t, dir+"/.gitignore", data)
		tr.add(dir, true)
		tr.rules[dir] = Parse(dir, data)
		tr.raw[dir] = string(data)

		if rnd.IntN(3) == 0 { // a nested ignore file
			sub := dir + "/" + genNames[rnd.IntN(6)]
			if tr.add(sub, true) {
				var nested []string
				for range 1 + rnd.IntN(2) {
					nested = append(nested, genPattern(rnd))
				}
				ndata := []byte(strings.Join(nested, "\n"))
				g.write(t, sub+"/.gitignore", ndata)
				tr.rules[sub] = Parse(sub, ndata)
				tr.raw[sub] = string(ndata)
			}
		}
		for range 8 {
			p := dir + "/" + genPath(rnd)
			if rnd.IntN(20) == 0 {
				p = fmt.Sprintf("c%03d/%s", rnd.IntN(cases), genPath(rnd)) // under another case
			}
			tr.add(p, rnd.IntN(3) == 0)
		}
	}
	queries, got := tr.askGit(t, g)
	fails := 0
	for _, p := range queries {
		want := got[p]
		ign, src, line := tr.walk(p)
		ok := ign == want.ignored()
		if ok && line >= 0 && (src != want.source || line != want.line) {
			ok = false
		}
		if !ok {
			fails++
			if fails <= 30 {
				top, _, _ := strings.Cut(p, "/")
				t.Errorf("%q (dir=%v): ignored=%v at %s:%d, git: ignored=%v at %s:%d %q\nignore file %q",
					p, tr.isDir[p], ign, src, line, want.ignored(), want.source, want.line, want.pattern, tr.raw[top])
			}
		}
	}
	t.Logf("%d paths compared with git, %d ignore files", len(queries), len(tr.rules))
	if fails > 0 {
		t.Errorf("%d of %d paths disagree with git", fails, len(queries))
	}
}

// TestGitClasses compares bracket expressions with git for every byte.
func TestGitClasses(t *testing.T) {
	g := newGitRepo(t)
	classes := []string{
		"[[:alnum:]]", "[[:alpha:]]", "[[:blank:]]", "[[:cntrl:]]", "[[:digit:]]",
		"[[:graph:]]", "[[:lower:]]", "[[:print:]]", "[[:punct:]]", "[[:space:]]",
		"[[:upper:]]", "[[:xdigit:]]", "[!a-y]", "[^[:alpha:]]", "[a-]", "[]-a]", "[!]]",
		"[\\]]", "[[:alpha:]-z]", "[a-\\z]", "[[:al]", "[[:]]", "[[:digit:]a-c-z]",
		"[\\a-c]", "[z-a]", "[---]", "[\x80-\xff]", "[[]", "[[:a]", "[!-]", "[*?]",
		"[[:alpha:][:digit:]]", "[[:foo:]]", "[a", "[]", "[!", "[[:alpha:]",
	}
	var queries []string
	rules := map[string]*Rules{}
	for i, cl := range classes {
		dir := fmt.Sprintf("k%02d", i)
		data := []byte("x" + cl + "y\n")
		g.write(t, dir+"/.gitignore", data)
		rules[dir] = Parse(dir, data)
		for c := 1; c < 256; c++ {
			if c == '/' {
				continue
			}
			queries = append(queries, dir+"/x"+string([]byte{byte(c)})+"y")
		}
		queries = append(queries, dir+"/xy", dir+"/x]]y", dir+"/x[]y")
	}
	got := g.checkIgnore(t, queries)
	fails := 0
	for _, p := range queries {
		dir, _, _ := strings.Cut(p, "/")
		ign, _ := rules[dir].Match(p, false)
		if want := got[p].ignored(); ign != want {
			fails++
			if fails <= 30 {
				t.Errorf("pattern %q, path %q: ignored=%v, git %v", rules[dir].Base, p, ign, want)
			}
		}
	}
	if fails > 0 {
		t.Errorf("%d of %d disagree with git", fails, len(queries))
	}
}

// TestGitParse compares the reading of an awkward ignore file with git:
// BOM, CRLF, trailing spaces and tabs, escapes, NUL bytes, a long line,
// a last line without a newline.
func TestGitParse(t *testing.T) {
	g := newGitRepo(t)
	long := strings.Repeat("l", 5000)
	data := "\xef\xbb\xbfbom\r\n" +
		"crlf\r\n" +
		"sp   \n" +
		"esc\\ \n" +
		"esc2\\  \n" +
		"tab\t\n" +
		"\\#hash\n" +
		"#comment\n" +
		" #notcomment\n" +
		"\\!bang\n" +
		"nul\x00tail\n" +
		"cr\rmid\n" +
		"\r\n" +
		"   \n" +
		"trail\\\n" +
		"spbs \\\n" +
		long + "*\n" +
		"!\n" +
		"/\n" +
		"//\n" +
		"dironly/  \n" +
		"last"
	g.write(t, ".gitignore", []byte(data))
	r := Parse("", []byte(data))
	names := []string{
		"bom", "\xef\xbb\xbfbom", "crlf", "crlf\r", "sp", "sp   ", "esc ", "esc", "esc2 ", "esc2  ",
		"tab\t", "tab", "#hash", "\\#hash", "#comment", " #notcomment", "!bang", "nul", "nul\x00tail"[:3] + "x",
		"cr\rmid", "trail\\", "trail", "spbs \\", "spbs ", long, long + "x", "dironly", "last", "lastx",
	}
	g.mkdir(t, "dironly")
	got := g.checkIgnore(t, names)
	for _, n := range names {
		isDir := n == "dironly"
		i := r.match(n, isDir)
		want := got[n]
		line := 0
		if i >= 0 {
			line = int(r.pats[i].line)
		}
		if line != want.line {
			t.Errorf("%q: matched line %d, git line %d (%q)", n, line, want.line, want.pattern)
		}
	}
}

// TestGitWildmatch compares dense wildcard patterns (many '*', "**" and
// '?' over a two-letter alphabet) with git, to exercise backtracking.
func TestGitWildmatch(t *testing.T) {
	g := newGitRepo(t)
	rnd := rand.New(rand.NewPCG(7, 7))
	tr := &tree{isDir: map[string]bool{}, rules: map[string]*Rules{}, raw: map[string]string{}}
	pieces := []string{"a", "b", "*", "**", "?", "/", "/", "a", "[ab]", "\\*", "*a", "b*"}
	const cases = 200
	for c := range cases {
		dir := fmt.Sprintf("w%03d", c)
		var sb strings.Builder
		for range 2 + rnd.IntN(7) {
			sb.WriteString(pieces[rnd.IntN(len(pieces))])
		}
		data := []byte(sb.String() + "\n")
		g.write(t, dir+"/.gitignore", data)
		tr.add(dir, true)
		tr.rules[dir] = Parse(dir, data)
		tr.raw[dir] = string(data)
		for range 10 {
			var p strings.Builder
			for i := range 1 + rnd.IntN(4) {
				if i > 0 {
					p.WriteByte('/')
				}
				for range 1 + rnd.IntN(4) {
					p.WriteByte("ab"[rnd.IntN(2)])
				}
			}
			tr.add(dir+"/"+p.String(), rnd.IntN(3) == 0)
		}
	}
	queries, got := tr.askGit(t, g)
	fails := 0
	for _, p := range queries {
		want := got[p]
		ign, src, line := tr.walk(p)
		if ign != want.ignored() || line >= 0 && (src != want.source || line != want.line) {
			fails++
			if fails <= 30 {
				top, _, _ := strings.Cut(p, "/")
				t.Errorf("%q (dir=%v): ignored=%v at %s:%d, git: ignored=%v at %s:%d, pattern %q",
					p, tr.isDir[p], ign, src, line, want.ignored(), want.source, want.line, tr.raw[top])
			}
		}
	}
	if fails > 0 {
		t.Errorf("%d of %d paths disagree with git", fails, len(queries))
	}
}

// TestGitBigFile compares a realistic ignore file of fifty lines, which
// exercises the name, path and extension indexes, with git.
func TestGitBigFile(t *testing.T) {
	g := newGitRepo(t)
	g.write(t, ".gitignore", []byte(benchIgnore))
	tr := &tree{isDir: map[string]bool{}, rules: map[string]*Rules{"": Parse("", []byte(benchIgnore))}}
	extra := []string{"a/logs", "coverage", "x/coverage", "out", "x/out", "tmp", "a/tmp", "data/x.csv",
		"a/data/x.csv", "x.pyc", "a/b.pyo", "bin", "Bin", "obj", "x.egg-info", "a.min.js", "a.map",
		".coverage.x", ".env.local", ".envx.local", "file~", "vendor", "a/vendor", ".vscode/x.json",
		"a/generated/b/c", "generated", "docs/x.html", "docs/a/b/x.html", "npm-debug.log.1",
		"a.tsbuildinfo", "x.sqlite3", "src/testdata/golden-x.json", "src/a/b/testdata/golden-.json"}
	for i, p := range append(append([]string(nil), benchPaths...), extra...) {
		if !strings.HasPrefix(p, "dist/") { // built in: git knows nothing of it
			tr.add(p, i%4 == 3)
		}
	}
	queries, got := tr.askGit(t, g)
	for _, p := range queries {
		want := got[p]
		ign, src, line := tr.walk(p)
		if ign != want.ignored() || line >= 0 && (src != want.source || line != want.line) {
			t.Errorf("%q (dir=%v): ignored=%v at %s:%d, git: ignored=%v at %s:%d %q",
				p, tr.isDir[p], ign, src, line, want.ignored(), want.source, want.line, want.pattern)
		}
	}
}
