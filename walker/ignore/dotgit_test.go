package ignore

import "testing"

// TestIsBuiltinDotGit: every spelling of ".git" is ignored, as a
// directory and as a file (the gitfile of a submodule or worktree), as
// ".git" is; look-alike names are not.
func TestIsBuiltinDotGit(t *testing.T) {
	for _, name := range []string{".git", ".GIT", ".Git", ".git.", ".git ", "git~1", "GIT~1", ".g\u200cit", "\ufeff.git", ".git::$INDEX_ALLOCATION"} {
		for _, isDir := range []bool{true, false} {
			if !IsBuiltin(name, isDir) {
				t.Errorf("IsBuiltin(%q, dir %v) = false", name, isDir)
			}
			if !New().Ignored("sub/"+name, isDir) {
				t.Errorf("Ignored(%q, dir %v) = false", "sub/"+name, isDir)
			}
		}
	}
	for _, name := range []string{".gitignore", ".gitmodules", ".github", ".git-blame-ignore-revs", "git"} {
		if IsBuiltin(name, false) || IsBuiltin(name, true) {
			t.Errorf("IsBuiltin(%q) = true", name)
		}
	}
}
