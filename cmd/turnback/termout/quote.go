package termout

import (
	"encoding/base64"
	"strings"
	"unicode/utf8"
)

// Names from the folder are data: a file name can hold any byte but '/'
// and NUL, and printed raw, "\x1b[2J" would clear the user's screen and a
// newline would forge a line of output. Every path in human output goes
// through QuotePath, which quotes as git does with core.QuotePath=false:
//
//   - a name made only of printable characters is printed as is, valid
//     non-ASCII UTF-8 included ("café.txt", "日本.md");
//   - any other name is put in double quotes, with C escapes for \a \b \t
//     \n \v \f \r \" and \\, and a three-digit octal escape (\ooo) for
//     every other byte below 0x20, for 0x7f, for each byte of a C1
//     control character (U+0080 to U+009F, which some terminals obey as
//     escape sequences; git prints these raw) and for every byte that is
//     not part of valid UTF-8.
//
// The quoted form is unambiguous (unquotePath in the tests reverses it)
// and never holds a control byte.

// QuotePath returns p as human output shows it.
func QuotePath(p string) string {
	if !needsQuote(p) {
		return p
	}
	var b strings.Builder
	b.Grow(len(p) + 8)
	b.WriteByte('"')
	writeEscaped(&b, p, true)
	b.WriteByte('"')
	return b.String()
}

// needsQuote reports whether p holds anything QuotePath escapes.
func needsQuote(p string) bool {
	for i := 0; i < len(p); {
		c := p[i]
		if c < utf8.RuneSelf {
			if c < 0x20 || c == 0x7f || c == '"' || c == '\\' {
				return true
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(p[i:])
		if r == utf8.RuneError && n == 1 || IsC1(r) {
			return true
		}
		i += n
	}
	return false
}

// IsC1 reports a C1 control character (U+0080 to U+009F).
func IsC1(r rune) bool { return r >= 0x80 && r <= 0x9f }

// SafeText makes free text (an error message, a turn's message) safe for
// a terminal: control characters, C1 controls and invalid UTF-8 are
// escaped as QuotePath escapes them; quotes and backslashes stay as they
// are and nothing is added around it. Text that needs nothing is
// returned unchanged.
func SafeText(s string) string {
	clean := true
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c < 0x20 || c == 0x7f {
				clean = false
				break
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 || IsC1(r) {
			clean = false
			break
		}
		i += n
	}
	if clean {
		return s
	}
	var b strings.Builder
	writeEscaped(&b, s, false)
	return b.String()
}

// writeEscaped writes s with its control bytes, C1 controls and invalid
// UTF-8 escaped; with quotes, '"' and '\\' are escaped too.
func writeEscaped(b *strings.Builder, s string, quotes bool) {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			i++
			switch c {
			case '\a':
				b.WriteString(`\a`)
			case '\b':
				b.WriteString(`\b`)
			case '\t':
				b.WriteString(`\t`)
			case '\n':
				b.WriteString(`\n`)
			case '\v':
				b.WriteString(`\v`)
			case '\f':
				b.WriteString(`\f`)
			case '\r':
				b.WriteString(`\r`)
			case '"', '\\':
				if quotes {
					b.WriteByte('\\')
				}
				b.WriteByte(c)
			default:
				if c < 0x20 || c == 0x7f {
					writeOctal(b, c)
				} else {
					b.WriteByte(c)
				}
			}
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 || IsC1(r) {
			for _, c := range []byte(s[i : i+n]) {
				writeOctal(b, c)
			}
		} else {
			b.WriteString(s[i : i+n])
		}
		i += n
	}
}

func writeOctal(b *strings.Builder, c byte) {
	b.WriteByte('\\')
	b.WriteByte('0' + c>>6)
	b.WriteByte('0' + c>>3&7)
	b.WriteByte('0' + c&7)
}

// JSONBytes returns the base64 (standard, padded) of a name that is not
// valid UTF-8, and "" for a valid one. JSON strings hold only valid UTF-8
// (encoding/json turns each invalid byte into U+FFFD), so "path" is then
// only a display form and "path_bytes" carries the name exactly.
func JSONBytes(s string) string {
	if utf8.ValidString(s) {
		return ""
	}
	return base64.StdEncoding.EncodeToString([]byte(s))
}

// PathsBytes returns the "<list>_bytes" companion of a list of paths in
// --json: nil (leave the key out) when every path is valid UTF-8, else an
// array as long as the list holding the base64 of each path that is not
// valid UTF-8 and null for the others.
func PathsBytes(paths []string) []*string {
	var out []*string
	for i, p := range paths {
		b := JSONBytes(p)
		if b == "" {
			continue
		}
		if out == nil {
			out = make([]*string, len(paths))
		}
		out[i] = &b
	}
	return out
}

// DisplayPath is QuotePath, with "." for the work tree itself ("").
func DisplayPath(p string) string {
	if p == "" {
		return "."
	}
	return QuotePath(p)
}

// ShellQuote quotes s for a POSIX shell when it needs it.
func ShellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r == '/' || r == '.' || r == '-' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
