package dotgit

import (
	"strings"
	"unicode/utf8"
)

// Is reports whether name, one path component, names git's repository
// directory on some filesystem (see the package doc). It never
// allocates for names that do not start like ".git", "git~" or an
// ignorable code point.
func Is(name string) bool {
	if name == "" {
		return false
	}
	switch name[0] {
	case '.', 'g', 'G':
	case 0xe2, 0xef: // first byte of an ignorable code point
	default:
		return false
	}
	if hasIgnorable(name) {
		name = dropIgnorable(name)
	}
	return ntfs(name)
}

// ntfs applies git's is_ntfs_dotgit to name, a component: ".git" or
// "git~N" in any case, then only dots and spaces, up to the end, a
// backslash, a colon or a NUL (where a C string ends).
func ntfs(name string) bool {
	var rest string
	switch {
	case len(name) >= 4 && name[0] == '.' && lowerIs(name[1:4], "git"):
		rest = name[4:]
	case len(name) >= 5 && lowerIs(name[:3], "git") && name[3] == '~' && isDigit(name[4]):
		rest = strings.TrimLeft(name[4:], "0123456789")
	default:
		return false
	}
	for i := 0; i < len(rest); i++ {
		switch rest[i] {
		case '\\', '/', ':', 0:
			return true
		case '.', ' ':
		default:
			return false
		}
	}
	return true
}

// lowerIs reports whether s equals the lower-case ASCII word w but for
// the case of its letters.
func lowerIs(s, w string) bool {
	for i := 0; i < len(w); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != w[i] {
			return false
		}
	}
	return true
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// Ignorable reports whether HFS+ ignores r in a name (git's
// next_hfs_char).
func Ignorable(r rune) bool {
	switch {
	case 0x200c <= r && r <= 0x200f, 0x202a <= r && r <= 0x202e, 0x206a <= r && r <= 0x206f, r == 0xfeff:
		return true
	}
	return false
}

func hasIgnorable(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c == 0xe2 || c == 0xef {
			r, _ := utf8.DecodeRuneInString(s[i:])
			if Ignorable(r) {
				return true
			}
		}
	}
	return false
}

// dropIgnorable returns s without its ignorable code points; bytes that
// are not valid UTF-8 stay as they are.
func dropIgnorable(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if !Ignorable(r) {
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}
