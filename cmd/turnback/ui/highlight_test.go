package ui

import (
	"regexp"
	"strings"
	"testing"
)

func paintAs(col string) func(string) string {
	return func(s string) string { return "\x1b[" + col + "m" + s + "\x1b[39m" }
}

var (
	cm = paintAs("90")
	kw = paintAs("35")
	st = paintAs("36")
	nu = paintAs("33")
	nm = paintAs("34")
)

func TestHighlightLine(t *testing.T) {
	long := strings.Repeat(`x := "a\"b" // `, 5000)
	tests := []struct {
		path, in, want string
	}{
		// Go.
		{"a.go", `func (r *T) Name(x int) error { return fmt.Errorf("x %d\n", 0x1F) } // hi`,
			kw("func") + ` (r *T) Name(x ` + nm("int") + `) ` + nm("error") + ` { ` + kw("return") +
				` fmt.Errorf(` + st(`"x %d\n"`) + `, ` + nu("0x1F") + `) } ` + cm("// hi")},
		{"a.go", `type Foo struct{}`, kw("type") + " " + nm("Foo") + " " + kw("struct") + "{}"},
		{"a.go", "s := `raw\\` + 'x'", "s := " + st("`raw\\`") + " + " + st("'x'")},
		{"a.go", `x /* one */ = 1.5e-3`, "x " + cm("/* one */") + " = " + nu("1.5e-3")},
		{"a.go", `x /* not closed`, "x " + cm("/* not closed")},
		{"a.go", ` * doc line`, cm(" * doc line")},
		{"a.go", `	*p = 3`, "\t*p = " + nu("3")},
		{"a.go", `end of block */ x := 1`, cm("end of block */") + " x := " + nu("1")},
		{"a.go", `a := "unterminated`, "a := " + st(`"unterminated`)},
		{"a.go", `a := "escape at end\`, "a := " + st(`"escape at end\`)},
		{"a.go", "a := \"\xff\xfe\" + b\x80", "a := " + st("\"\xff\xfe\"") + " + b\x80"},
		{"a.go", "x1 := v2", "x1 := v2"},
		{"a.go", long, strings.Repeat("x := "+st(`"a\"b"`)+" "+cm("// "+strings.Repeat(`x := "a\"b" // `, 4999)), 1)},
		// C family.
		{"a.ts", `const f = (a: number) => 'it\'s' // c`,
			kw("const") + " f = (a: " + nm("number") + ") => " + st(`'it\'s'`) + " " + cm("// c")},
		{"a.java", `public class A { int $x = 0; }`,
			kw("public") + " " + kw("class") + " " + nm("A") + " { " + nm("int") + " $x = " + nu("0") + "; }"},
		{"a.c", `#include <stdio.h>`, "#include <stdio.h>"},
		{"a.rs", `fn f<'a>(x: &'a str) -> char { '\n' }`,
			kw("fn") + " " + nm("f") + "<'a>(x: &'a " + nm("str") + ") -> " + nm("char") + " { " + st(`'\n'`) + " }"},
		{"a.rs", `let c = 'é';`, kw("let") + " c = " + st("'é'") + ";"},
		// Python.
		{"a.py", `def f(x): return """doc""" + 'a\'b' # c`,
			kw("def") + " " + nm("f") + "(x): " + kw("return") + " " + st(`"""doc"""`) + " + " + st(`'a\'b'`) + " " + cm("# c")},
		{"a.py", `s = """starts here`, "s = " + st(`"""starts here`)},
		// Shell.
		{"a.sh", `echo "$#" ${#x} # comment`, nm("echo") + " " + st(`"$#"`) + " ${#x} " + cm("# comment")},
		{"a.sh", `x='a\' # not closed`, "x=" + st(`'a\'`) + " " + cm("# not closed")},
		// Ruby.
		{"a.rb", `def hi; puts "x#{1}" end # c`,
			kw("def") + " " + nm("hi") + "; " + nm("puts") + " " + st(`"x#{1}"`) + " " + kw("end") + " " + cm("# c")},
		// JSON.
		{"a.json", `{"a": [1, -2.5e10, true, null]}`,
			"{" + st(`"a"`) + ": [" + nu("1") + ", -" + nu("2.5e10") + ", " + kw("true") + ", " + kw("null") + "]}"},
		{"a.json", `{"a\`, "{" + st(`"a\`)},
		// YAML and TOML.
		{"a.yaml", `  - name: "foo" # c`, "  - " + nm("name") + ": " + st(`"foo"`) + " " + cm("# c")},
		{"a.yml", `url: http://x#y`, nm("url") + ": http://x#y"},
		{"a.toml", `[tool.x]`, kw("[tool.x]")},
		{"a.toml", `key = 1.5e+3`, nm("key") + " = " + nu("1.5e+3")},
		// Markdown.
		{"a.md", "## Heading 2", kw("## Heading 2")},
		{"a.md", "use `go test` now 3 times", "use " + st("`go test`") + " now 3 times"},
		{"a.md", "    # code, not a heading", "    # code, not a heading"},
		// Markup.
		{"a.html", `<a href="x.html" class='y'>text 3</a> <!-- c -->`,
			"<" + nm("a") + " href=" + st(`"x.html"`) + " class=" + st(`'y'`) + ">text 3</" + nm("a") + "> " + cm("<!-- c -->")},
		{"a.xml", `<?xml version="1.0`, "<?" + nm("xml") + " version=" + st(`"1.0`)},
		{"a.html", `<`, "<"},
		// SQL.
		{"a.sql", `SELECT 'a' -- c`, kw("SELECT") + " " + st("'a'") + " " + cm("-- c")},
	}
	for _, tt := range tests {
		h := newHighlighter(tt.path)
		if h == nil {
			t.Fatalf("no highlighter for %s", tt.path)
		}
		got := h.line(tt.in)
		if got != tt.want {
			t.Errorf("%s %.60q:\n got %.200q\nwant %.200q", tt.path, tt.in, got, tt.want)
		}
		if again := h.line(tt.in); again != got {
			t.Errorf("%s %.60q: the cached line differs", tt.path, tt.in)
		}
	}
}

func TestHighlighterFor(t *testing.T) {
	for path, known := range map[string]bool{
		"a.go": true, "dir/B.PY": true, "Makefile": true, "x/Dockerfile": true,
		"notes.txt": false, "README": false, "a.bin": false, "": false,
	} {
		if got := newHighlighter(path) != nil; got != known {
			t.Errorf("newHighlighter(%q) known = %v, want %v", path, got, known)
		}
	}
	var h *highlighter
	if got := h.line("x := 1"); got != "x := 1" {
		t.Errorf("a nil highlighter changed the line: %q", got)
	}
}

var ourCodes = regexp.MustCompile("\x1b\\[(90|35|36|33|34|39)m")

// FuzzHighlight checks the highlighter never panics and only adds colour.
func FuzzHighlight(f *testing.F) {
	for _, s := range []string{`func f() { return "x\" }`, "/* a */ b", "'a", `"""`, "<a b='c", "## h", "k: v # c", "\xff'\\"} {
		f.Add("a.go", s)
		f.Add("a.md", s)
	}
	exts := []string{"a.go", "a.c", "a.rs", "a.py", "a.sh", "a.rb", "a.json", "a.yaml", "a.toml", "a.md", "a.html", "a.sql"}
	f.Fuzz(func(t *testing.T, path, text string) {
		if strings.IndexByte(text, 0x1b) >= 0 {
			t.Skip() // the UI makes control characters safe before colouring
		}
		for _, p := range append(exts, path) {
			h := newHighlighter(p)
			if h == nil {
				continue
			}
			out := h.line(text)
			if plain := ourCodes.ReplaceAllString(out, ""); plain != text {
				t.Fatalf("%s: colouring changed the text %q to %q", p, text, plain)
			}
			if strings.Count(out, "\x1b[39m") != strings.Count(out, "\x1b[")/2 {
				t.Fatalf("%s: unbalanced colours in %q", p, out)
			}
		}
	})
}
