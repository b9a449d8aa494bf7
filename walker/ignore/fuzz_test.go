package ignore

import (
	"strings"
	"testing"
)

// FuzzParse feeds arbitrary ignore files and paths through Parse, Match
// and Matcher: nothing may panic, and the verdicts must be consistent.
func FuzzParse(f *testing.F) {
	f.Add([]byte(benchIgnore), "src/app.log", false)
	f.Add([]byte("\xef\xbb\xbf*.o\r\n!keep.o\r\n"), "a/keep.o", false)
	f.Add([]byte("a/**/b\n[x-\n\\\n!\n/\n"), "a/x/b", true)
	f.Add([]byte("**/\n**\\/x\nfoo**/bar\n"), "fooX/Y/bar", true)
	f.Add([]byte("[[:alpha:][:nope:]]\n[]]\n[!]]x\n"), "]x", false)
	f.Fuzz(func(t *testing.T, data []byte, rel string, isDir bool) {
		if len(data) > 1<<16 || len(rel) > 1<<12 {
			return
		}
		r := Parse("", data)
		ig, found := r.Match(rel, isDir)
		if ig && !found {
			t.Fatal("ignored without a match")
		}
		if a, b := r.match(rel, isDir), r.matchLinear(rel, isDir); a != b {
			t.Fatalf("indexed match: line index %d, linear: %d", a, b)
		}
		m := New().Push(r)
		name := strings.TrimRight(rel, "/")
		name = name[strings.LastIndexByte(name, '/')+1:]
		want := IsBuiltin(name, isDir)
		if found && name != ".git" {
			want = ig // a pattern decides before the built-in names
		}
		if got := m.Ignored(rel, isDir); got != want {
			t.Fatalf("Matcher says %v, Rules and built-ins say %v", got, want)
		}
		// The same file under a base must judge the path below it alike.
		rb := Parse("base/dir", data)
		ig2, found2 := rb.Match("base/dir/"+rel, isDir)
		if strings.TrimRight(rel, "/") != "" && (ig2 != ig || found2 != found) {
			t.Fatalf("under a base: (%v, %v), at the root: (%v, %v)", ig2, found2, ig, found)
		}
	})
}

// FuzzMatch checks one pattern against one path: the compiled matcher
// (fast paths and automaton) must agree with the reference matcher over
// the same tokens.
func FuzzMatch(f *testing.F) {
	for _, c := range matchCases {
		if !strings.Contains(c.file, "\n") && len(c.path) < 100 {
			f.Add(c.file, c.path)
		}
	}
	f.Fuzz(func(t *testing.T, pattern, text string) {
		if len(pattern) > 1<<12 || len(text) > 1<<12 {
			return
		}
		g := compileGlob(pattern)
		got := g.match(text)
		toks, classes, ok := tokenize(pattern, literalLen(pattern))
		if !ok {
			if got {
				t.Fatal("invalid pattern matched")
			}
			return
		}
		if len(toks)*len(text) <= 1<<16 {
			if want := refMatch(toks, classes, text); got != want {
				t.Fatalf("%q on %q: match = %v, reference = %v", pattern, text, got, want)
			}
		}
		if g.mode == midNFA && len(g.toks) < 64 && len(text) >= len(g.prefix)+len(g.suffix) {
			mid := text
			if len(mid) >= len(g.prefix)+len(g.suffix) {
				mid = mid[len(g.prefix) : len(mid)-len(g.suffix)]
			}
			if a, b := g.nfaSmall(mid), g.nfaLarge(mid); a != b {
				t.Fatalf("nfaSmall = %v, nfaLarge = %v", a, b)
			}
		}
		// And through Parse: one line, judged by basename or full path.
		r := Parse("", []byte(pattern))
		_, _ = r.Match(text, true)
		_, _ = r.Match(text, false)
	})
}

// matchLinear is Rules.match without the index: every line from the last.
func (r *Rules) matchLinear(rel string, isDir bool) int {
	rel = strings.TrimRight(rel, "/")
	name := rel
	if r.Base != "" {
		if !strings.HasPrefix(rel, r.Base+"/") {
			return -1
		}
		name = rel[len(r.Base)+1:]
	}
	if name == "" {
		return -1
	}
	last := name[strings.LastIndexByte(name, '/')+1:]
	for i := len(r.pats) - 1; i >= 0; i-- {
		p := &r.pats[i]
		if p.dirOnly && !isDir {
			continue
		}
		t := name
		if p.basename {
			t = last
		}
		if p.g.match(t) {
			return i
		}
	}
	return -1
}
