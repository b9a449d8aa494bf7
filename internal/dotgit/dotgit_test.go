package dotgit

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestIs(t *testing.T) {
	for _, tc := range []struct {
		name string
		want bool
	}{
		{".git", true},
		{".GIT", true},
		{".Git", true},
		{".gIt", true},
		// HFS+: ignorable code points anywhere.
		{".g\u200cit", true},
		{"\u200c.git", true},
		{".git\u200d", true},
		{".\u200eG\u200fI\u202at\u202b", true},
		{".gi\u202c\u202d\u202et", true},
		{".g\u206ai\u206b\u206c\u206d\u206e\u206ft", true},
		{"\ufeff.git", true},
		// NTFS: trailing dots and spaces, short names, streams.
		{".git.", true},
		{".git ", true},
		{".git. .. ", true},
		{".GIT  .", true},
		{"git~1", true},
		{"GIT~1", true},
		{"Git~1.", true},
		{"git~2", true},
		{"git~12 ", true},
		{".git::$INDEX_ALLOCATION", true},
		{".git:stream", true},
		{".git. :x", true},
		{"git~1::$INDEX_ALLOCATION", true},
		{".git\\config", true},
		{".git\x00x", true},
		{"git~1\\config", true},
		// Both at once.
		{".g\u200cit. ", true},
		{"g\ufeffit~1", true},

		// Not .git.
		{"", false},
		{".", false},
		{"..", false},
		{"git", false},
		{".gi", false},
		{".gitignore", false},
		{".gitmodules", false},
		{".gitattributes", false},
		{".git-rewrite", false},
		{".git.bak", false},
		{".git x", false},
		{".github", false},
		{"git~", false},
		{"git~a", false},
		{"git~1a", false},
		{"git~1.txt", false},
		{"gitx~1", false},
		{"~git", false},
		{"x.git", false},
		{" .git", false},
		{".g it", false},
		{".g\u200bit", false},   // U+200B is not ignored by HFS+
		{".\u0120it", false},    // Ġ
		{".\u0147it", false},    // Ň: git's fsck allows it
		{".g\u0130t", false},    // İ
		{".g\u0131t", false},    // dotless ı
		{".\uff47it", false},    // fullwidth g
		{".g\xe2\x80it", false}, // truncated UTF-8
		{".g\xffit", false},
		{"node_modules", false},
		{"a.txt", false},
	} {
		if got := Is(tc.name); got != tc.want {
			t.Errorf("Is(%q) = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestIsAllocs: the common names cost no allocation.
func TestIsAllocs(t *testing.T) {
	names := []string{"main.go", ".gitignore", "git~1.txt", ".GIT", "node_modules", ".github"}
	if n := testing.AllocsPerRun(100, func() {
		for _, s := range names {
			Is(s)
		}
	}); n != 0 {
		t.Errorf("Is allocates %v times", n)
	}
}

// cString is name as C sees it: up to its first NUL.
func cString(name string) string {
	if i := strings.IndexByte(name, 0); i >= 0 {
		return name[:i]
	}
	return name
}

// gitHFS is git's is_hfs_dotgit (utf8.c) for one component: next_hfs_char
// skips the ignorable code points, and malformed UTF-8 is not ".git".
func gitHFS(name string) bool {
	s := cString(name)
	next := func() (rune, bool) {
		for {
			if s == "" {
				return 0, true
			}
			r, n := utf8.DecodeRuneInString(s)
			if r == utf8.RuneError && n <= 1 {
				return 0, false // malformed
			}
			s = s[n:]
			if !Ignorable(r) {
				return r, true
			}
		}
	}
	for _, want := range ".git" {
		c, ok := next()
		if !ok || c > 127 || strings.ToLower(string(c)) != string(want) {
			return false
		}
	}
	c, ok := next()
	return ok && (c == 0 || c == '/')
}

// gitNTFS is git's is_ntfs_dotgit (path.c).
func gitNTFS(name string) bool {
	name = cString(name)
	var rest string
	switch {
	case len(name) >= 4 && strings.EqualFold(name[:4], ".git"):
		rest = name[4:]
	case len(name) >= 5 && strings.EqualFold(name[:5], "git~1"):
		rest = name[5:]
	default:
		return false
	}
	for _, c := range []byte(rest) {
		if c == '\\' || c == '/' || c == ':' {
			return true
		}
		if c != '.' && c != ' ' {
			return false
		}
	}
	return true
}

// asciiUpper upper-cases the ASCII letters of s (strings.ToUpper would
// turn the dotless i into I).
func asciiUpper(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'a' <= c && c <= 'z' {
			b[i] = c - 'a' + 'A'
		}
	}
	return string(b)
}

func FuzzIs(f *testing.F) {
	for _, s := range []string{".git", ".GIT", ".g\u200cit", ".git.", "git~1", ".git::$INDEX_ALLOCATION", ".gitignore", "a", "", "\ufeff.Git \\x", ".g\xe2\x80it"} {
		f.Add(s, 2)
	}
	f.Fuzz(func(t *testing.T, name string, at int) {
		got := Is(name)
		// Everything git refuses is refused.
		if (gitHFS(name) || gitNTFS(name)) && !got {
			t.Fatalf("Is(%q) = false; git calls it .git", name)
		}
		// ASCII case and ignorable code points make no difference.
		if up := asciiUpper(name); Is(up) != got {
			t.Fatalf("Is(%q) = %v but Is(%q) = %v", name, got, up, !got)
		}
		if at < 0 {
			at = -at
		}
		at %= len(name) + 1
		for at > 0 && at < len(name) && !utf8.RuneStart(name[at]) {
			at--
		}
		with := name[:at] + "\u200c" + name[at:]
		if Is(with) != got {
			t.Fatalf("Is(%q) = %v but Is(%q) = %v", name, got, with, !got)
		}
		// A name Is accepts starts like ".git" or "git~" once the
		// ignorable code points are gone.
		if got {
			s := strings.ToLower(dropIgnorable(name))
			if !strings.HasPrefix(s, ".git") && !strings.HasPrefix(s, "git~") {
				t.Fatalf("Is(%q) = true", name)
			}
		}
	})
}
