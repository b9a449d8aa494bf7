package termout

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"
)

// unquotePath reverses QuotePath: a name not starting with '"' is
// itself; a quoted one has its escapes decoded.
func unquotePath(q string) (string, error) {
	if !strings.HasPrefix(q, `"`) {
		return q, nil
	}
	if len(q) < 2 || !strings.HasSuffix(q, `"`) {
		return "", errors.New("unterminated quote")
	}
	q = q[1 : len(q)-1]
	var b strings.Builder
	for i := 0; i < len(q); i++ {
		c := q[i]
		if c == '"' {
			return "", errors.New("bare quote inside")
		}
		if c != '\\' {
			b.WriteByte(c)
			continue
		}
		i++
		if i >= len(q) {
			return "", errors.New("trailing backslash")
		}
		switch q[i] {
		case 'a':
			b.WriteByte('\a')
		case 'b':
			b.WriteByte('\b')
		case 't':
			b.WriteByte('\t')
		case 'n':
			b.WriteByte('\n')
		case 'v':
			b.WriteByte('\v')
		case 'f':
			b.WriteByte('\f')
		case 'r':
			b.WriteByte('\r')
		case '"', '\\':
			b.WriteByte(q[i])
		case '0', '1', '2', '3':
			if i+2 >= len(q) {
				return "", errors.New("short octal escape")
			}
			v := 0
			for _, d := range []byte(q[i : i+3]) {
				if d < '0' || d > '7' {
					return "", errors.New("bad octal escape")
				}
				v = v*8 + int(d-'0')
			}
			b.WriteByte(byte(v))
			i += 2
		default:
			return "", errors.New("unknown escape")
		}
	}
	return b.String(), nil
}

func TestQuotePath(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"plain.txt", "plain.txt"},
		{"dir/sub file.go", "dir/sub file.go"},
		{"café/日本.md", "café/日本.md"},
		{"", ""},
		{"evil\x1b[2J\x1b[31mRED.txt", `"evil\033[2J\033[31mRED.txt"`},
		{"two\nlines", `"two\nlines"`},
		{"a\tb\rc\ad\be\vf\fg", `"a\tb\rc\ad\be\vf\fg"`},
		{`say "hi"`, `"say \"hi\""`},
		{`back\slash`, `"back\\slash"`},
		{"del\x7f", `"del\177"`},
		{"nul-ish\x01\x1f", `"nul-ish\001\037"`},
		{"latin1-caf\xe9", `"latin1-caf\351"`},
		{"bad\xff\xfe", `"bad\377\376"`},
		{"c1-\u009b31m", `"c1-\302\23331m"`},
		{"trunc\xe6\x97", `"trunc\346\227"`},
	} {
		got := QuotePath(tc.in)
		if got != tc.want {
			t.Errorf("QuotePath(%q) = %s; want %s", tc.in, got, tc.want)
		}
		back, err := unquotePath(got)
		if err != nil || back != tc.in {
			t.Errorf("unquotePath(%s) = %q, %v; want %q", got, back, err, tc.in)
		}
	}
}

func TestSafeText(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`turnback: open "x": no such file`, `turnback: open "x": no such file`},
		{"turnback: a\x1b[2Jb: \\ bad", `turnback: a\033[2Jb: \ bad`},
		{"line\nbreak\xff", `line\nbreak\377`},
	} {
		if got := SafeText(tc.in); got != tc.want {
			t.Errorf("SafeText(%q) = %q; want %q", tc.in, got, tc.want)
		}
	}
}

func TestPathsBytes(t *testing.T) {
	if got := PathsBytes([]string{"a", "b/c"}); got != nil {
		t.Errorf("PathsBytes of valid names = %v; want nil", got)
	}
	got := PathsBytes([]string{"a", "b\xff"})
	if len(got) != 2 || got[0] != nil || got[1] == nil || *got[1] != "Yv8=" {
		t.Errorf("PathsBytes = %v; want [nil Yv8=]", got)
	}
}

// hasControl reports a raw control byte (C0, DEL) or a C1 control.
func hasControl(s string) bool {
	for _, r := range s {
		if r < 0x20 || r == 0x7f || IsC1(r) {
			return true
		}
	}
	return false
}

func FuzzQuotePath(f *testing.F) {
	for _, s := range []string{"plain", "evil\x1b[2J", "a\nb", `q"\`, "\xff\xfe", "caf\xc3\xa9", "\u009b", "\xe6\x97"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		q := QuotePath(s)
		if !utf8.ValidString(q) || hasControl(q) {
			t.Fatalf("QuotePath(%q) = %q: holds a control byte or invalid UTF-8", s, q)
		}
		back, err := unquotePath(q)
		if err != nil || back != s {
			t.Fatalf("unquotePath(QuotePath(%q) = %s) = %q, %v", s, q, back, err)
		}
		if q == s && needsQuote(s) {
			t.Fatalf("QuotePath(%q) left a name that needs quoting as is", s)
		}
		if st := SafeText(s); !utf8.ValidString(st) || hasControl(st) {
			t.Fatalf("SafeText(%q) = %q: holds a control byte or invalid UTF-8", s, st)
		}
	})
}
