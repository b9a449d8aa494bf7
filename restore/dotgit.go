package restore

import (
	"errors"
	"fmt"
	"strings"

	"github.com/turnback/turnback/internal/dotgit"
)

// ErrDotGit: a path has a component that names git's repository
// directory on some filesystem (".GIT", ".git.", "git~1", ".g\u200cit":
// see package dotgit). Capture never records one; a tree that holds one
// is damaged or hostile, and no restore writes or removes it.
var ErrDotGit = errors.New("a spelling of .git, git's repository on a case-insensitive, HFS+ or NTFS filesystem: turnback never writes it")

// ValidPath checks a path a restore is asked to change: a clean,
// relative, slash-separated path of valid names, none of which is a
// spelling of ".git" (the error then wraps ErrDotGit).
func ValidPath(p string) error { return validPath(p) }

// dotGitProblem returns an error wrapping ErrDotGit if a component of p
// is a spelling of ".git".
func dotGitProblem(p string) error {
	for name := range strings.SplitSeq(p, "/") {
		if dotgit.Is(name) {
			return fmt.Errorf("restore: refusing %q: %q is %w", p, name, ErrDotGit)
		}
	}
	return nil
}
