package cli

import (
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/turnback/turnback/manifest/treetest"
)

// dgSpellings are names of git's directory on some filesystem that a
// Linux folder can hold.
var dgSpellings = []string{".GIT", ".Git", ".git.", ".git ", "git~1", ".g\u200cit", ".git::$INDEX_ALLOCATION"}

// TestDotGitSpellingsNotCaptured: directories and files named ".git" in
// any spelling (".GIT", ".git.", "git~1", ".g\u200cit"...) are ignored
// as ".git" is, at any depth, also by a watch daemon's captures; an
// undo never touches them. Look-alike names (.gitignore, .github) are
// captured.
func TestDotGitSpellingsNotCaptured(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("Windows names cannot hold these spellings")
	}
	g := newSubtestGroup(t)
	for _, how := range []string{"cli", "daemon"} {
		g.run(how, func(t *testing.T) {
			e := newUndoEnv(t)
			e.shortXDG()
			e.write("a.txt", "a\n")
			e.write(".gitignore", "*.log\n")
			e.write(".github/ci.yml", "on: push\n")
			for i, name := range dgSpellings {
				e.write(name+"/config", "[core]\n\tfsmonitor = touch pwned\n")
				if i%2 == 0 {
					e.write("sub/"+name, "gitdir: ../.git/modules/sub\n") // a gitfile
				} else {
					e.write("sub/"+name+"/HEAD", "ref: refs/heads/main\n")
				}
			}
			if how == "daemon" {
				e.startWatchDaemon()
			}
			e.ok("snap", "-m", "turn")
			e.write("a.txt", "a changed\n")
			for _, name := range dgSpellings {
				e.write(name+"/config", "[core]\n\tfsmonitor = touch pwned-later\n")
			}
			id := e.snapID("end")
			var doc struct {
				Entries []struct {
					Path string `json:"path"`
				} `json:"entries"`
			}
			e.okJSON(&doc, "show", id)
			var paths []string
			for _, en := range doc.Entries {
				paths = append(paths, en.Path)
			}
			for _, p := range paths {
				for _, name := range dgSpellings {
					if p == name || strings.HasPrefix(p, name+"/") || strings.Contains(p, "/"+name) {
						t.Errorf("captured %q (a spelling of .git)", p)
					}
				}
			}
			for _, want := range []string{"a.txt", ".gitignore", ".github/ci.yml"} {
				if !slices.Contains(paths, want) {
					t.Errorf("%s not captured: %q", want, paths)
				}
			}
			before := e.tree()
			e.ok("undo")
			want := before.With(treetest.Tree{"a.txt": treetest.File("a\n", 0o644)})
			e.same("after undo", want)
		})
	}
	g.wait()
}

// TestDotGitHostileJournal: a journal in the store (the record a crash
// leaves for recovery) that would write ".GIT/config" is refused by the
// recovery every command runs first, and by recover --rollback: exit 1
// naming the path, nothing written.
func TestDotGitHostileJournal(t *testing.T) {
	t.Parallel()
	e := newStoreEnv(t)
	e.write("a.txt", "a\n")
	e.ok("snap")
	journal := `{"v":1,"id":"0123456789ab","work_tree":"` + e.dir + `","actions":[` +
		`{"path":".GIT","new":{"kind":"dir","mode":493}},` +
		`{"path":".GIT/config","new":{"kind":"file","mode":420,"size":4,"hash":"` + strings.Repeat("ab", 32) + `"},"stage":".turnback-0123456789ab-1"}]}`
	cliWriteFile(t, e.store+"/journal", []byte(journal))
	before := e.tree()
	for _, args := range [][]string{{"status"}, {"recover"}, {"recover", "--rollback"}} {
		r := e.expect(1, args...)
		if !strings.Contains(r.stderr, `".GIT"`) || !strings.Contains(r.stderr, "spelling of .git") {
			t.Errorf("%s does not say why it refuses:\n%v", args, r)
		}
		e.same("after "+strings.Join(args, " "), before)
	}
}
