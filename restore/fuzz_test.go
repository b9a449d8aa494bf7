package restore

import (
	"path"
	"strings"
	"testing"

	"github.com/turnback/turnback/internal/dotgit"
)

// FuzzValidPath: a path a plan accepts is a clean, relative,
// slash-separated path below the work tree: nothing in it can name the
// root, a parent, or a place outside, and no component is a spelling of
// ".git" (which a case-insensitive, HFS+ or NTFS filesystem would take
// for git's repository).
func FuzzValidPath(f *testing.F) {
	for _, s := range []string{"a", "a/b.txt", "", "/", "/etc/passwd", "..", "a/../b", "./a", "a//b", "a/", "a\x00b", "a\\b", ".git/config", "é/ü",
		"a/.GIT/config", ".Git", "sub/git~1/hooks/x", ".g\u200cit/config", ".git./config", ".git::$INDEX_ALLOCATION/config", ".gitignore", "a/.github/x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		if validPath(p) != nil {
			return
		}
		switch {
		case path.IsAbs(p):
			t.Fatalf("accepted absolute path %q", p)
		case path.Clean(p) != p:
			t.Fatalf("accepted unclean path %q (clean: %q)", p, path.Clean(p))
		case p == "." || p == ".." || strings.HasPrefix(p, "../"):
			t.Fatalf("accepted %q, which is not below the root", p)
		case strings.ContainsRune(p, 0):
			t.Fatalf("accepted %q with a NUL byte", p)
		}
		for _, name := range strings.Split(p, "/") {
			if name == "" || name == "." || name == ".." {
				t.Fatalf("accepted %q with the component %q", p, name)
			}
			if dotgit.Is(name) {
				t.Fatalf("accepted %q, whose component %q is a spelling of .git", p, name)
			}
		}
	})
}
