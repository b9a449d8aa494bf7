package cli

// Hooks find the folder's store from a subfolder: an agent whose cwd (or
// project directory) is below a folder that already has a store records
// into that store and never makes a second one.

import (
	"os"
	"path/filepath"
	"testing"
)

// storeDirs lists the store directories under the default store root.
func storeDirs(t *testing.T, root string) []string {
	t.Helper()
	ents, err := os.ReadDir(root)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var out []string
	for _, en := range ents {
		if en.IsDir() {
			out = append(out, en.Name())
		}
	}
	return out
}

func TestHookSubfolderUsesFolderStore(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, agent, snap, end string
		env                    string // project directory variable, set to <project>/src ("" = none)
	}{
		{"claude-cwd", "claude", "claude_user_prompt_submit.json", "claude_stop.json", ""},
		{"gemini-cwd", "gemini", "gemini_before_agent.json", "gemini_after_agent.json", ""},
		{"claude-project-dir", "claude", "claude_user_prompt_submit.json", "claude_stop.json", "CLAUDE_PROJECT_DIR"},
		{"gemini-project-dir", "gemini", "gemini_before_agent.json", "gemini_after_agent.json", "GEMINI_PROJECT_DIR"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			e := newHookEnv(t)
			e.write("top.txt", "top\n")
			e.write("src/deep/code.go", "package deep\n")
			// The folder has a store: the user ran turnback there.
			e.ok("snap", "-m", "by hand")
			e.ok("end")
			stores := storeDirs(t, e.storeRoot())
			if len(stores) != 1 {
				t.Fatalf("after a snap in the project: store dirs %v; want one", stores)
			}
			sub := filepath.Join(e.dir, "src", "deep")
			if c.env != "" {
				e.extra = []string{c.env + "=" + filepath.Join(e.dir, "src")}
			}
			snap := hookPayload(t, c.snap, sub)
			sid := payloadSession(t, snap)
			checkHookResult(t, c.agent, e.exec(sub, snap, "hook", c.agent), 0)
			e.write("src/deep/code.go", "package deep // changed\n")
			e.write("top.txt", "top, changed from below\n")
			checkHookResult(t, c.agent, e.exec(sub, hookPayload(t, c.end, sub), "hook", c.agent), 0)

			if after := storeDirs(t, e.storeRoot()); len(after) != 1 || after[0] != stores[0] {
				t.Errorf("hook from %s: store dirs %v; want only the folder's %v", sub, after, stores)
			}
			e.extra = nil
			doc := e.log(sid) // in the project folder
			if len(doc.Turns) != 1 || doc.Turns[0].Open || doc.Turns[0].Modified != 2 {
				t.Fatalf("the folder's store: want the hook's turn, closed, ~2 (top.txt is outside the subfolder), got %+v", doc)
			}
		})
	}
}
