package restore

import (
	"errors"
	"testing"
)

// TestValidPathDotGit: a path with a spelling of ".git" as any component
// is refused with ErrDotGit; names that only look alike are not.
func TestValidPathDotGit(t *testing.T) {
	for _, p := range []string{".git", ".git/config", "a/.GIT/config", "a/b/.Git", "git~1/hooks/pre-commit",
		".g\u200cit/config", ".git./config", ".git /x", "a/.git::$INDEX_ALLOCATION/config", "GIT~1"} {
		if err := validPath(p); !errors.Is(err, ErrDotGit) {
			t.Errorf("validPath(%q) = %v, want ErrDotGit", p, err)
		}
	}
	for _, p := range []string{".gitignore", "a/.gitmodules", ".github/workflows/ci.yml", "git", "a/git~x", ".git.bak/x", "x.git"} {
		if err := validPath(p); err != nil {
			t.Errorf("validPath(%q) = %v, want nil", p, err)
		}
	}
}
