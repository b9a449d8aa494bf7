package ignore

import "github.com/turnback/turnback/internal/dotgit"

// isDotGit reports whether name is ".git" in any spelling that names
// git's repository directory on some filesystem: ".GIT", ".Git", ".git.",
// "git~1", ".g\u200cit" (see package dotgit). Such an entry is ignored
// whatever its kind, as ".git" itself is: a directory, or the file that
// submodules and worktrees use.
func isDotGit(name string) bool { return dotgit.Is(name) }
