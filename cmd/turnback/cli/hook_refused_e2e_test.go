package cli

// An agent started in the home directory or in / runs its hooks there.
// turnback refuses such a folder; these tests check that nothing makes
// a store folder for it.

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// refusedMsg is what turnback says of / or the home directory.
const refusedMsg = "refusing a work tree that is / or the home directory"

// TestHookRefusedFolder: in the home directory or in /, every agent's
// prompt and end hooks are refused: exit 1, the refusal on stderr, one
// line in hook.log of turnback's data directory. Neither they nor snap,
// end, status or an MCP server started there create a store folder: not
// in the data directory, also when it is inside the home directory, and
// not at $TURNBACK_STORE.
func TestHookRefusedFolder(t *testing.T) {
	t.Parallel()
	type event struct{ agent, file, want string }
	var events []event
	for _, f := range []struct{ agent, snap, end string }{
		{"claude", "claude_user_prompt_submit.json", "claude_stop.json"},
		{"gemini", "gemini_before_agent.json", "gemini_after_agent.json"},
		{"codex", "codex_user_prompt_submit.json", "codex_stop.json"},
		{"copilot", "copilot_user_prompt_submitted.json", "copilot_agent_stop.json"},
		{"cursor", "cursor_before_submit_prompt.json", "cursor_stop.json"},
		{"qwen", "qwen_user_prompt_submit.json", "qwen_stop.json"},
		{"opencode", "opencode_real_chat_message.json", "opencode_real_session_idle.json"},
	} {
		events = append(events, event{f.agent, f.snap, refusedMsg}, event{f.agent, f.end, refusedMsg})
	}
	// An own command without a session fails before the folder is opened.
	events = append(events, event{"gemini", "", "the event names no session"})
	for _, c := range []struct {
		name  string
		root  bool // the folder is /, else the home directory
		xdg   bool // XDG_DATA_HOME is set, else the data is in ~/.local/share
		store bool // TURNBACK_STORE names a store
	}{
		{"home", false, true, false},
		{"home-no-xdg", false, false, false},
		{"home-turnback-store", false, true, true},
		{"root", true, true, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			e := newHookEnv(t)
			e.dir = e.home
			if c.root {
				e.dir = "/"
			}
			data := filepath.Join(e.xdg, "turnback")
			if !c.xdg {
				e.extra = []string{"XDG_DATA_HOME="}
				data = filepath.Join(e.home, ".local", "share", "turnback")
			}
			store := filepath.Join(e.base, "store")
			if c.store {
				e.extra = append(e.extra, "TURNBACK_STORE="+store)
			}
			for _, ev := range events {
				payload := []byte(`{"hook_event_name":"BeforeAgent","cwd":` + jsonString(e.dir) + `,"prompt":"/undo"}`)
				if ev.file != "" {
					payload = hookPayload(t, ev.file, e.dir)
				}
				r := e.hook(ev.agent, payload, 1)
				if !strings.Contains(r.stderr, ev.want) {
					t.Errorf("hook %s %s: stderr does not say %q\n%s", ev.agent, ev.file, ev.want, r)
				}
			}
			log := hookLogOf(t, data)
			if n := strings.Count(log, "\n"); n != len(events) || strings.Count(log, refusedMsg) != len(events)-1 {
				t.Errorf("hook.log in %s has %d lines, want %d, all but one refusals:\n%s", data, n, len(events), log)
			}
			for _, args := range [][]string{{"snap"}, {"end"}, {"status"}} {
				if r := e.exec("", nil, args...); r.code != 1 || !strings.Contains(r.stderr, refusedMsg) {
					t.Errorf("want the refusal, exit 1:\n%s", r)
				}
			}
			cs := mcpClient(t, e, e.dir)
			for _, tool := range []string{"turnback_status", "turnback_turns"} {
				if _, text := mcpCall(t, cs, true, tool, map[string]any{}); !strings.Contains(text, refusedMsg) {
					t.Errorf("mcp %s: %q does not say %q", tool, text, refusedMsg)
				}
			}
			cs.Close()
			if dirs := dirsIn(t, data); len(dirs) != 0 {
				t.Errorf("store folders made for a refused folder: %v", dirs)
			}
			if _, err := os.Lstat(store); !os.IsNotExist(err) {
				t.Errorf("TURNBACK_STORE made for a refused folder (%v)", err)
			}
			// The home directory gains only the data directory's hook.log.
			var want []string
			if !c.xdg {
				want = []string{".local", ".local/share", ".local/share/turnback", ".local/share/turnback/hook.log"}
			}
			if got := pathsIn(t, e.home); !slices.Equal(got, want) {
				t.Errorf("the home directory holds %q, want %q", got, want)
			}
		})
	}
}

// jsonString is s as a JSON string.
func jsonString(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}

// dirsIn lists the directories in dir (none if dir is absent).
func dirsIn(t testing.TB, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var out []string
	for _, d := range ents {
		if d.IsDir() {
			out = append(out, d.Name())
		}
	}
	return out
}

// pathsIn lists everything below dir, slash-separated and relative.
func pathsIn(t testing.TB, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, _ fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p != dir {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
