package ignore

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// Verdicts of Rules.Match in the table.
const (
	none = iota // no pattern matches
	ign         // ignored
	neg         // matched by a "!" pattern: not ignored
)

type matchCase struct {
	file  string // ignore file content
	base  string // its directory
	path  string // relative to the work-tree root
	isDir bool
	want  int
}

var matchCases = []matchCase{
	// Plain names match the last component at any depth below Base.
	{"foo", "", "foo", false, ign},
	{"foo", "", "foo", true, ign},
	{"foo", "", "a/foo", false, ign},
	{"foo", "", "a/b/c/foo", true, ign},
	{"foo", "", "foox", false, none},
	{"foo", "", "xfoo", false, none},
	{"foo", "", "foo.txt", false, none},
	{"foo", "", "a/foo/b", false, none}, // the parent is the walker's business
	{"foo", "sub", "sub/foo", false, ign},
	{"foo", "sub", "sub/x/foo", false, ign},
	{"foo", "sub", "foo", false, none},      // not under Base
	{"foo", "sub", "subx/foo", false, none}, // not under Base
	{"foo", "sub", "sub", true, none},       // Base itself
	{"foo", "a/b", "a/b/foo", false, ign},
	{"foo", "a/b", "a/foo", false, none},
	{"foo", "", "", true, none},

	// Comments and blank lines.
	{"#foo", "", "#foo", false, none},
	{"# foo", "", "foo", false, none},
	{"\\#foo", "", "#foo", false, ign},
	{" #foo", "", " #foo", false, ign},
	{"a#b", "", "a#b", false, ign},
	{"\n\n\nfoo\n\n", "", "foo", false, ign},
	{"   \n", "", " ", false, none},
	{"\t", "", "\t", false, ign}, // only spaces are trimmed

	// Negation and order: the last matching line wins.
	{"!foo", "", "foo", false, neg},
	{"*.log\n!keep.log", "", "keep.log", false, neg},
	{"*.log\n!keep.log", "", "a.log", false, ign},
	{"!keep.log\n*.log", "", "keep.log", false, ign},
	{"foo\n!foo\nfoo", "", "foo", false, ign},
	{"foo\n!foo", "", "foo", false, neg},
	{"\\!foo", "", "!foo", false, ign},
	{"\\!foo", "", "foo", false, none},
	{"!\\!foo", "", "!foo", false, neg},
	{"!!foo", "", "!foo", false, neg},
	{"!", "", "!", false, none},
	{"*\n!*.go\n!/cmd/", "", "cmd", true, neg},
	{"*\n!*.go\n!/cmd/", "", "x/cmd", true, ign},

	// Trailing spaces.
	{"foo   ", "", "foo", false, ign},
	{"foo   ", "", "foo   ", false, none},
	{"foo\\ ", "", "foo ", false, ign},
	{"foo\\ ", "", "foo", false, none},
	{"foo\\  ", "", "foo ", false, ign},
	{"foo \\ ", "", "foo  ", false, ign},
	{"\\ ", "", " ", false, ign},
	{"a b", "", "a b", false, ign},
	{"foo\\", "", "foo", false, none}, // trailing backslash: never matches
	{"foo\\", "", "foo\\", false, none},
	{"foo\\\\", "", "foo\\", false, ign},
	{"foo/  ", "", "foo", true, ign},
	{"foo/  ", "", "foo", false, none},

	// CRLF, BOM, NUL.
	{"foo\r\nbar\r\n", "", "foo", false, ign},
	{"foo\r\nbar\r\n", "", "bar", false, ign},
	{"foo\r\nbar", "", "foo\r", false, none},
	{"foo\r", "", "foo", false, ign},
	{"dir/\r\n", "", "dir", true, ign},
	{"dir/\r\n", "", "dir", false, none},
	{"foo  \r\n", "", "foo", false, ign},
	{"a\rb\n", "", "a\rb", false, ign},
	{"\xef\xbb\xbffoo\n", "", "foo", false, ign},
	{"\xef\xbb\xbf#foo\n", "", "#foo", false, none},
	{"x\n\xef\xbb\xbffoo\n", "", "foo", false, none}, // a BOM only counts at the start
	{"foo\x00bar", "", "foo", false, ign},
	{"foo\x00bar", "", "foobar", false, none},

	// Directory-only patterns.
	{"build/", "", "build", true, ign},
	{"build/", "", "build", false, none},
	{"build/", "", "a/build", true, ign},
	{"logs/\nlogs", "", "logs", false, ign},
	{"logs\n!logs/", "", "logs", false, ign},
	{"logs\n!logs/", "", "logs", true, neg},
	{"a/b/", "", "a/b", true, ign},
	{"a/b/", "", "a/b", false, none},
	{"a/b/", "", "x/a/b", true, none},
	{"/", "", "a", true, none},
	{"//", "", "a", true, none},
	{"foo//", "", "foo", true, none},

	// Anchoring: a '/' at the start or in the middle.
	{"/foo", "", "foo", false, ign},
	{"/foo", "", "a/foo", false, none},
	{"/foo", "sub", "sub/foo", false, ign},
	{"/foo", "sub", "sub/a/foo", false, none},
	{"a/b", "", "a/b", false, ign},
	{"a/b", "", "x/a/b", false, none},
	{"a/b", "x", "x/a/b", false, ign},
	{"a/b", "x", "x/y/a/b", false, none},
	{"/a/b", "", "a/b", false, ign},
	{"//foo", "", "foo", false, none},
	{"a/*", "", "a/b", false, ign},
	{"a/*", "", "a/b/c", false, none},
	{"a/*", "", "a", true, none},
	{"*/b", "", "a/b", false, ign},
	{"*/b", "", "x/a/b", false, none},
	{"doc/*.txt", "", "doc/notes.txt", false, ign},
	{"doc/*.txt", "", "doc/server/arch.txt", false, none},
	{"/*.c", "", "cat-file.c", false, ign},
	{"/*.c", "", "mozilla-sha1/sha1.c", false, none},

	// '*', '?'.
	{"*", "", "anything", false, ign},
	{"*", "", "a/b/c", false, ign},
	{"*.o", "", "x.o", false, ign},
	{"*.o", "", "a/b/x.o", false, ign},
	{"*.o", "", "x.os", false, none},
	{"*.o", "", ".o", false, ign},
	{"a*", "", "a", false, ign},
	{"a*b", "", "ab", false, ign},
	{"a*b", "", "axxb", false, ign},
	{"a*b", "", "axxbx", false, none},
	{"a*b*c", "", "abc", false, ign},
	{"a*b*c", "", "aXbYbZc", false, ign},
	{"a*b*c", "", "aXbYbZcQ", false, none},
	{"*a*", "", "bab", false, ign},
	{"?", "", "a", false, ign},
	{"?", "", "ab", false, none},
	{"??", "", "é", false, ign}, // bytes, not characters
	{"?", "", "é", false, none},
	{"a?c", "", "abc", false, ign},
	{"a?c", "", "ac", false, none},
	{"x/a?c", "", "x/a/c", false, none},
	{"x/a*c", "", "x/a/c", false, none},
	{"x/a*", "", "x/a/c", false, none},
	{"x*/c", "", "x/c", false, ign},
	{"x*/c", "", "xy/c", false, ign},
	{"x*/c", "", "xy/z/c", false, none},

	// Character classes.
	{"[abc]", "", "b", false, ign},
	{"[abc]", "", "d", false, none},
	{"[a-c]x", "", "bx", false, ign},
	{"[a-c]x", "", "dx", false, none},
	{"[!a-c]x", "", "dx", false, ign},
	{"[!a-c]x", "", "ax", false, none},
	{"[^a-c]x", "", "dx", false, ign},
	{"[^a-c]x", "", "ax", false, none},
	{"[]]", "", "]", false, ign},
	{"[]a]", "", "a", false, ign},
	{"[!]]", "", "]", false, none},
	{"[!]]", "", "a", false, ign},
	{"[a-]", "", "-", false, ign},
	{"[-a]", "", "-", false, ign},
	{"[\\]]", "", "]", false, ign},
	{"[\\-a]", "", "-", false, ign},
	{"[\\-a]", "", "b", false, none},
	{"[a\\-c]", "", "b", false, none},
	{"[a\\-c]", "", "-", false, ign},
	{"[z-a]", "", "m", false, none},
	{"[[:digit:]]", "", "7", false, ign},
	{"[[:digit:]]", "", "x", false, none},
	{"[[:alpha:][:digit:]]", "", "x", false, ign},
	{"[[:upper:]]*", "", "README", false, ign},
	{"[[:upper:]]*", "", "readme", false, none},
	{"[![:space:]]", "", " ", false, none},
	{"[![:space:]]", "", "x", false, ign},
	{"[[:nope:]]", "", "n", false, none},  // unknown class: never matches
	{"[[:alpha:]", "", "a", false, none},  // unclosed
	{"[[:alpha]", "", "a", false, ign},    // no ":]": an ordinary '[' set
	{"[[:alpha]", "", ":", false, ign},    // ...
	{"[[:alpha]", "", "]", false, none},   // ...
	{"[abc", "", "a", false, none},        // unclosed: never matches
	{"[abc", "", "[abc", false, none},     // ...not even literally
	{"[", "", "[", false, none},           // ...
	{"[]", "", "]", false, none},          // ']' first is a member, then unclosed
	{"foo[", "", "foo[", false, none},     // ...
	{"x[/]y", "", "x/y", false, none},     // a set never matches '/'
	{"x[!a]y", "", "x/y", false, none},    // ...
	{"[a-c]*\nb*", "", "b", false, ign},   // a good line after...
	{"b*\n[a-c\nzz", "", "b", false, ign}, // ...or around a bad one
	{"[\x80-\xff]", "", "\xc3", false, ign},

	// Escapes.
	{"\\*", "", "*", false, ign},
	{"\\*", "", "a", false, none},
	{"\\?", "", "?", false, ign},
	{"\\?", "", "a", false, none},
	{"\\[a]", "", "[a]", false, ign},
	{"\\[a]", "", "a", false, none},
	{"\\a", "", "a", false, ign},
	{"a\\*b", "", "a*b", false, ign},
	{"a\\*b", "", "aXb", false, none},
	{"*\\*", "", "x*", false, ign},
	{"a\\/b", "", "a/b", false, ign},

	// "**".
	{"**/foo", "", "foo", false, ign},
	{"**/foo", "", "a/foo", false, ign},
	{"**/foo", "", "a/b/foo", false, ign},
	{"**/foo", "", "a/b/foox", false, none},
	{"**/foo/bar", "", "foo/bar", false, ign},
	{"**/foo/bar", "", "x/y/foo/bar", false, ign},
	{"**/foo/bar", "", "foo/x/bar", false, none},
	{"**/foo", "sub", "sub/foo", false, ign},
	{"**/foo", "sub", "sub/a/foo", false, ign},
	{"**/foo", "sub", "foo", false, none},
	{"abc/**", "", "abc/x", false, ign},
	{"abc/**", "", "abc/x/y/z", false, ign},
	{"abc/**", "", "abc", true, none},
	{"abc/**", "", "x/abc/y", false, none},
	{"a/**/b", "", "a/b", false, ign},
	{"a/**/b", "", "a/x/b", false, ign},
	{"a/**/b", "", "a/x/y/b", false, ign},
	{"a/**/b", "", "a/xb", false, none},
	{"a/**/b", "", "ab", false, none},
	{"a/**/**/b", "", "a/b", false, ign},
	{"a/**/**/b", "", "a/x/y/b", false, ign},
	{"**", "", "x", false, ign},
	{"**", "", "x/y", false, ign},
	{"/**", "", "x/y", false, ign},
	{"/**", "s", "s/x", false, ign},
	{"**/", "", "d", true, ign},
	{"**/", "", "f", false, none},
	{"a/**/", "", "a/b/c", true, ign},
	{"a/**/", "", "a/b/c", false, none},
	{"a**b", "", "aXb", false, ign},       // not special: a '*'
	{"x/a**b", "", "x/aX/b", false, none}, // ...that does not cross '/'
	{"x/**b", "", "x/Yb", false, ign},
	{"x/**b", "", "x/Y/b", false, none},
	{"x/b**", "", "x/bY", false, ign},
	{"***/foo", "", "a/b/foo", false, ign},
	{"a/***", "", "a/b/c", false, ign},
	{"foo**/bar", "", "foo/bar", false, ign},    // git: "**" after the literal
	{"foo**/bar", "", "fooX/Y/bar", false, ign}, // prefix is at the matcher's start
	{"f?o**/bar", "", "fXoY/Z/bar", false, none},
	{"**\\/x", "", "a/x", false, ign}, // "**" then a literal '/'...
	{"**\\/x", "", "x", false, none},  // ...without the zero-directory case
	{"a/**\\/x", "", "a/b/x", false, ign},
	{"a/**\\/x", "", "a/x", false, none},
	{"**/*.md", "", "docs/a/b.md", false, ign},
	{"docs/**/*.md", "", "docs/b.md", false, ign},
	{"docs/**/*.md", "", "docs/a/b/c.md", false, ign},
	{"docs/**/*.md", "", "docs/a/b/c.mdx", false, none},

	// Dotfiles are not special.
	{"*", "", ".hidden", false, ign},
	{".*", "", ".env", false, ign},
	{".*", "", "x", false, none},

	// Case-sensitive, byte-wise.
	{"foo", "", "FOO", false, none},
	{"é", "", "é", false, ign},
	{"*é", "", "café", false, ign},
}

func TestMatchTable(t *testing.T) {
	for _, c := range matchCases {
		r := Parse(c.base, []byte(c.file))
		ignored, found := r.Match(c.path, c.isDir)
		got := none
		if found {
			got = neg
			if ignored {
				got = ign
			}
		}
		if got != c.want {
			t.Errorf("file %q base %q: Match(%q, dir=%v) = %s, want %s",
				c.file, c.base, c.path, c.isDir, verdictName(got), verdictName(c.want))
		}
	}
}

func TestIndexAgreesWithLinear(t *testing.T) {
	files := []string{benchIgnore, "a\nb/\n*.x\n/a\n!a\n*.x/\n!/a/\nd/a\n!*.x\na\n"}
	paths := append([]string{"a", "b", "q.x", "d/a", "z/a", "z/b", "z/q.x", "d/a/a", ".x", "x.x.x"}, benchPaths...)
	for _, f := range files {
		r := Parse("", []byte(f))
		for _, p := range paths {
			for _, dir := range []bool{false, true} {
				if a, b := r.match(p, dir), r.matchLinear(p, dir); a != b {
					t.Errorf("%q dir=%v: indexed %d, linear %d", p, dir, a, b)
				}
			}
		}
	}
}

func verdictName(v int) string {
	return [...]string{"no match", "ignored", "negated"}[v]
}

func TestParseBase(t *testing.T) {
	for in, want := range map[string]string{
		"": "", ".": "", "/": "", "a": "a", "a/": "a", "/a/b/": "a/b", "./a//b": "a/b",
	} {
		if got := Parse(in, nil).Base; got != want {
			t.Errorf("Parse(%q).Base = %q, want %q", in, got, want)
		}
	}
}

func TestParseLines(t *testing.T) {
	data := "# comment\n\nfoo\n[bad\n!\n  \nbar/\n\\\n"
	r := Parse("", []byte(data))
	var lines []int32
	for _, p := range r.pats {
		lines = append(lines, p.line)
	}
	if fmt.Sprint(lines) != "[3 7]" {
		t.Errorf("kept lines %v, want [3 7]", lines)
	}
	if got := Parse("", nil); len(got.pats) != 0 {
		t.Errorf("empty file: %d patterns", len(got.pats))
	}
}

func TestLongLine(t *testing.T) {
	long := strings.Repeat("a", 1<<20)
	r := Parse("", []byte("x\n"+long+"\ny\n"))
	for _, p := range []string{"x", long, "y"} {
		if ig, _ := r.Match(p, false); !ig {
			t.Errorf("%d-byte name not ignored", len(p))
		}
	}
	if ig, _ := r.Match(long+"a", false); ig {
		t.Error("long line matched a longer name")
	}
	// A long wildcard line runs the multi-word automaton.
	wild := strings.Repeat("a?", 100) + "*"
	r = Parse("", []byte(wild))
	if ig, _ := r.Match(strings.Repeat("ab", 100)+"zz", false); !ig {
		t.Error("long wildcard pattern does not match")
	}
	if ig, _ := r.Match(strings.Repeat("ab", 99), false); ig {
		t.Error("long wildcard pattern matches a short name")
	}
}

func TestManyLines(t *testing.T) {
	// Many repeats of the same lines: the index must stay linear and keep
	// "the last line wins".
	var sb strings.Builder
	for i := range 30000 {
		if i%2 == 0 {
			sb.WriteString("a\n/b\n*.c\n")
		} else {
			sb.WriteString("!a\n!/b\n!*.c\n")
		}
	}
	sb.WriteString("a\n")
	r := Parse("", []byte(sb.String()))
	for p, want := range map[string]bool{"a": true, "b": false, "x.c": false, "d/b": false} {
		if got, _ := r.Match(p, false); got != want {
			t.Errorf("%q: ignored=%v, want %v", p, got, want)
		}
	}
}

func TestPathologicalIsFast(t *testing.T) {
	name := strings.Repeat("a", 4000)
	pats := []string{
		"a*a*a*a*a*a*a*a*a*a*a*a*b",
		"**/a*a*a*a*a*a*a*a*b",
		"*a*a*a*a*a*a*a*a*a*a*a*a*/b",
		"**/**/**/**/**/**/**/**/b",
		"a**a**a**a**a**a**a**b",
		strings.Repeat("*a", 200) + "b",
		strings.Repeat("?", 30) + strings.Repeat("*", 30) + "b",
		strings.Repeat("**/", 20000) + "b",
		strings.Repeat("*a", 30000) + "b",
		strings.Repeat("**/*/", 10000) + "b",
		strings.Repeat("[a]*", 10000) + "b",
	}
	// The same without a literal suffix, so that the automaton runs.
	for _, p := range pats[:7] {
		pats = append(pats, strings.TrimSuffix(p, "b")+"[b]")
	}
	pats = append(pats, strings.Repeat("*a", 1999)+"[b]", strings.Repeat("**/*a", 999)+"[b]")
	start := time.Now()
	for _, p := range pats {
		r := Parse("", []byte(p))
		for _, rel := range []string{name, strings.Repeat("a/", 1000) + "a"} {
			if ig, _ := r.Match(rel, false); ig {
				t.Errorf("%q matched", p)
			}
		}
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("pathological patterns took %v", d)
	}
}

func TestNFAWidths(t *testing.T) {
	// nfaSmall and nfaLarge must agree wherever both apply.
	pats := []string{"a*b?c", "**/x/*/y", "[ab]*[!c]", "a/**/b*/**/c", "*?*?*", "x**\\/y"}
	texts := []string{"", "abxc", "ab/c", "x/q/y", "a/b/c", "q/x/z/y", "a/bb/q/q/c", "abc", "x/yy/y", "xz/y"}
	for _, p := range pats {
		toks, classes, ok := tokenize(p, literalLen(p))
		if !ok {
			t.Fatalf("%q: bad pattern", p)
		}
		g := glob{classes: classes}
		g.setNFA(toks)
		for _, s := range texts {
			if a, b := g.nfaSmall(s), g.nfaLarge(s); a != b {
				t.Errorf("%q on %q: small %v, large %v", p, s, a, b)
			}
			if a, b := g.nfaSmall(s), refMatch(toks, classes, s); a != b {
				t.Errorf("%q on %q: nfa %v, reference %v", p, s, a, b)
			}
		}
	}
}

// refMatch is a plain memoized recursive matcher over tokens, the
// reference for the automaton and the fast paths.
func refMatch(toks []token, classes []byteSet, s string) bool {
	memo := make(map[[2]int]bool)
	var m func(k, i int) bool
	m = func(k, i int) bool {
		key := [2]int{k, i}
		if v, ok := memo[key]; ok {
			return v
		}
		var res bool
		switch {
		case k == len(toks):
			res = i == len(s)
		default:
			switch tk := toks[k]; tk.kind {
			case tokLit:
				res = i < len(s) && s[i] == tk.b && m(k+1, i+1)
			case tokAny:
				res = i < len(s) && s[i] != '/' && m(k+1, i+1)
			case tokClass:
				res = i < len(s) && classes[tk.cls].has(s[i]) && m(k+1, i+1)
			case tokStar:
				res = m(k+1, i) || i < len(s) && s[i] != '/' && m(k, i+1)
			case tokStarStar:
				res = m(k+1, i) || i < len(s) && m(k, i+1)
			case tokDirs:
				res = m(k+3, i) || m(k+1, i)
			}
		}
		memo[key] = res
		return res
	}
	return m(0, 0)
}

func TestBuiltins(t *testing.T) {
	for _, c := range []struct {
		name  string
		isDir bool
		want  bool
	}{
		{".git", true, true},
		{".git", false, true},
		{"node_modules", true, true},
		{"node_modules", false, false},
		{".env", true, false}, // evidence only: see TestJudge
		{".env", false, false},
		{"env", true, false},
		{"target", true, false},
		{"build", true, false},
		{"__pycache__", true, true},
		{".pnpm-store", true, true},
		{"src", true, false},
		{".gitignore", false, false},
		{"Node_Modules", true, false},
		{"", true, false},
	} {
		if got := IsBuiltin(c.name, c.isDir); got != c.want {
			t.Errorf("IsBuiltin(%q, %v) = %v", c.name, c.isDir, got)
		}
	}
	for _, d := range BuiltinDirs {
		if !IsBuiltin(d, true) || IsBuiltin(d, false) {
			t.Errorf("BuiltinDirs entry %q", d)
		}
	}
	must := []string{"node_modules",
		"__pycache__", ".pytest_cache", ".mypy_cache", ".tox", ".nox", ".gradle",
		".next", ".nuxt", ".turbo", ".parcel-cache", ".svelte-kit", ".terraform",
		"bower_components", ".sass-cache", ".ruff_cache", ".hypothesis", ".eggs"}
	for _, d := range must {
		if !IsBuiltin(d, true) {
			t.Errorf("%q is not built in", d)
		}
	}
	for _, d := range []string{".venv", "venv", "env", ".env", "dist", "build", "target", "out", ".cache"} {
		if IsBuiltin(d, true) || !slices.Contains(EvidenceDirs, d) {
			t.Errorf("%q: not an evidence name", d)
		}
	}
	m := New()
	if !m.Ignored("a/b/node_modules", true) || m.Ignored("a/b/node_modules", false) ||
		!m.Ignored(".git", false) || !m.Ignored("x/.git", true) || m.Ignored("x/.env", false) {
		t.Error("Ignored does not apply the built-ins")
	}
	// A negation re-includes a built-in name, never ".git".
	m = m.Push(Parse("", []byte("!node_modules/\n!.git")))
	if m.Ignored("node_modules", true) || !m.Ignored("a/.git", true) {
		t.Error("a negation did not re-include a built-in, or re-included .git")
	}
	if FileNames[0] != ".gitignore" || FileNames[1] != ".ignore" || FileNames[2] != ".turnbackignore" {
		t.Errorf("FileNames = %v", FileNames)
	}
}

func TestMatcherStack(t *testing.T) {
	root := New().Push(Parse("", []byte("*.log\n/top\nbuild-out/\ntmp")))
	sub := root.Push(
		Parse("sub", []byte("!keep.log\n/local\n")),
		nil,
		Parse("sub", []byte("tmp\n!tmp\n")), // a later file of the same directory
		Parse("sub", []byte("local2\n!/local\n")),
	)
	deep := sub.Push(Parse("sub/deep", []byte("keep.log\n")))
	cases := []struct {
		m     *Matcher
		rel   string
		isDir bool
		want  bool
	}{
		{root, "a.log", false, true},
		{root, "top", false, true},
		{root, "build-out", true, true},
		{root, "build-out", false, false},
		{root, "x.txt", false, false},
		{sub, "sub/a.log", false, true},
		{sub, "sub/keep.log", false, false}, // deeper negation wins
		{sub, "sub/top", false, false},      // root's /top is anchored to the root
		{sub, "sub/local", false, false},    // the later file of sub re-includes it
		{sub, "sub/local2", false, true},
		{sub, "sub/tmp", false, false}, // the second file's "!tmp" wins
		{root, "sub/tmp", false, true}, // root unchanged by Push
		{deep, "sub/deep/keep.log", false, true},
		{deep, "sub/deep/x/keep.log", false, true},
		{deep, "sub/deep/a.log", false, true},
		{deep, "sub/deep/node_modules", true, true},
		{sub, "sub/keep.log", false, false}, // sub unchanged by the deeper Push
	}
	for _, c := range cases {
		if got := c.m.Ignored(c.rel, c.isDir); got != c.want {
			t.Errorf("Ignored(%q, %v) = %v, want %v", c.rel, c.isDir, got, c.want)
		}
	}
	if root.Push() != root || root.Push(nil, nil) != root || root.Push(Parse("x", []byte("# only a comment"))) != root {
		t.Error("Push without rules should return the receiver")
	}
	var nilM *Matcher
	if nilM.Ignored("a", false) || !nilM.Ignored("node_modules", true) || nilM.Push() == nil {
		t.Error("nil Matcher does not behave like New()")
	}
	var nilR *Rules
	if ig, found := nilR.Match("a", false); ig || found {
		t.Error("nil Rules matched")
	}
}

func TestConcurrent(t *testing.T) {
	m := New().Push(Parse("", []byte(benchIgnore)))
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			child := m.Push(Parse("pkg", []byte("!*.log\ngen-"+fmt.Sprint(g))))
			for range 200 {
				for _, p := range benchPaths {
					m.Ignored(p, false)
					child.Ignored("pkg/"+p, true)
				}
			}
		}()
	}
	wg.Wait()
}
