package cli

// End-to-end tests of the agents added after Claude Code and Gemini CLI
// (Codex CLI, GitHub Copilot, Cursor, Qwen Code): init writes their
// settings, and every recorded payload is fed to the exact command line
// init wrote there, as the agent runs it (sh -c, from another folder,
// turnback not on PATH).

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/turnback/turnback/manifest/treetest"
)

// agentSettingsPath is where init --NAME writes, in the folder.
var agentSettingsPath = map[string]string{
	"claude": ".claude/settings.json", "gemini": ".gemini/settings.json", "codex": ".codex/hooks.json",
	"copilot": ".github/hooks/turnback.json", "cursor": ".cursor/hooks.json", "qwen": ".qwen/settings.json",
}

// agentStdout is what a hook of the agent prints on stdout, exactly.
func agentStdout(agent string) string {
	if agent == "gemini" || agent == "cursor" {
		return "{}\n"
	}
	return ""
}

// hookCommands returns the command lines the settings file at path
// runs for event: the "command" (or Copilot CLI's "bash") of every
// entry of hooks.EVENT, entries in groups ({"hooks": [...]}) or not.
func hookCommands(t testing.TB, path, event string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var settings struct {
		Hooks map[string][]map[string]any `json:"hooks"`
	}
	if err := json.Unmarshal(data, &settings); err != nil {
		t.Fatalf("%s: %v\n%s", path, err, data)
	}
	var out []string
	add := func(h map[string]any) {
		for _, k := range []string{"command", "bash"} {
			if c, ok := h[k].(string); ok {
				out = append(out, c)
				return
			}
		}
	}
	for _, g := range settings.Hooks[event] {
		hs, grouped := g["hooks"].([]any)
		if !grouped {
			add(g)
		}
		for _, h := range hs {
			if m, ok := h.(map[string]any); ok {
				add(m)
			}
		}
	}
	return out
}

// runAgentHooks does what the agent does for event: every command its
// settings file (init's) lists for it runs with sh -c, from the home
// directory (the folder comes from the payload), the payload on stdin;
// each must print exactly what the agent accepts, exit wantCode and
// never 2.
func (e *cliEnv) runAgentHooks(agent, event string, payload []byte, wantCode int) []cliResult {
	e.t.Helper()
	cmds := hookCommands(e.t, e.path(agentSettingsPath[agent]), event)
	if len(cmds) == 0 {
		e.t.Fatalf("no %s hook in %s", event, agentSettingsPath[agent])
	}
	var rs []cliResult
	for _, c := range cmds {
		ctx, cancel := context.WithTimeout(e.t.Context(), 30*time.Second)
		cmd := exec.CommandContext(ctx, "sh", "-c", c)
		cmd.Dir, cmd.Env = e.home, e.environ()
		r := cliWait(e.t, cmd, payload, []string{"(" + event + " hook: " + c + ")"})
		cancel()
		if want := agentStdout(agent); r.stdout != want {
			e.t.Errorf("%s %s: stdout = %q, want exactly %q\n%s", agent, event, r.stdout, want, r)
		}
		if r.code == 2 || r.code != wantCode {
			e.t.Errorf("%s %s: exit %d, want %d (never 2)\n%s", agent, event, r.code, wantCode, r)
		}
		rs = append(rs, r)
	}
	return rs
}

// newAgentEnv is a hook environment in which turnback is not on PATH,
// and init --agent has run: the hooks run the binary by its path.
func newAgentEnv(t *testing.T, agent string) *cliEnv {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("runs the hooks with sh -c")
	}
	e := newHookEnv(t)
	e.extra = []string{"PATH=/usr/bin:/bin"}
	r := e.ok("init", "--"+agent)
	if !strings.Contains(r.stdout, "added turnback hooks for "+agent) || !strings.Contains(r.stdout, "turnback is not on PATH: the hooks run "+e.bin+" hook "+agent) {
		t.Fatalf("init --%s without turnback on PATH:\n%s", agent, r)
	}
	return e
}

// sessionInPayload is the session id of a payload, under any of its names.
func sessionInPayload(t testing.TB, payload []byte) string {
	t.Helper()
	var ev map[string]any
	if err := json.Unmarshal(payload, &ev); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"session_id", "sessionId", "conversation_id"} {
		if s, _ := ev[k].(string); s != "" {
			return s
		}
	}
	t.Fatalf("payload names no session:\n%s", payload)
	return ""
}

// TestHookAgentsTurn: for each agent, through the command init wrote,
// the prompt event snaps, the events it does not use change nothing,
// and the end event closes one turn in the conversation's session with
// the prompt's first line; nothing is logged as failed.
func TestHookAgentsTurn(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, agent       string
		snapEvent, snap   string
		endEvent, end     string
		otherEvent, other string // an event turnback does not use ("" none)
	}{
		{"codex", "codex", "UserPromptSubmit", "codex_user_prompt_submit.json", "Stop", "codex_stop.json", "", "codex_pre_tool_use.json"},
		{"copilot-cli", "copilot", "userPromptSubmitted", "copilot_user_prompt_submitted.json", "agentStop", "copilot_agent_stop.json", "", ""},
		{"copilot-cli-pascal", "copilot", "UserPromptSubmit", "copilot_cli_user_prompt_submit.json", "Stop", "copilot_cli_stop.json", "", ""},
		{"copilot-vscode", "copilot", "UserPromptSubmit", "copilot_vscode_user_prompt_submit.json", "Stop", "copilot_vscode_stop.json", "", ""},
		{"cursor", "cursor", "beforeSubmitPrompt", "cursor_before_submit_prompt.json", "stop", "cursor_stop.json", "", "cursor_after_file_edit.json"},
		{"qwen", "qwen", "UserPromptSubmit", "qwen_user_prompt_submit.json", "Stop", "qwen_stop.json", "UserPromptSubmit", "qwen_continuation.json"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			e := newAgentEnv(t, c.agent)
			e.write("index.html", "<h1>hi</h1>\n")
			e.write("old.txt", "to be deleted\n")
			snap := hookPayload(t, c.snap, e.dir)
			sid := sessionInPayload(t, snap)
			e.runAgentHooks(c.agent, c.snapEvent, snap, 0)
			e.write("src/login.html", "<form></form>\n")
			if c.other != "" {
				// Mid-turn: a tool call (run through the hook binary
				// directly when init installs no hook for it), or Qwen
				// Code's prompt event of a tool-result continuation.
				other := hookPayload(t, c.other, e.dir)
				if c.otherEvent != "" {
					e.runAgentHooks(c.agent, c.otherEvent, other, 0)
				} else {
					e.hook(c.agent, other, 0)
				}
				if doc := e.log(sid); len(doc.Turns) != 1 || !doc.Turns[0].Open {
					t.Fatalf("after %s: want one open turn, got %+v", c.other, doc)
				}
			}
			e.write("index.html", "<h1>hi</h1>\n<a href=src/login.html>log in</a>\n")
			e.remove("old.txt")
			e.runAgentHooks(c.agent, c.endEvent, hookPayload(t, c.end, e.dir), 0)
			oneEndedTurn(t, e.log(sid), "Add a login form to the start page", 1, 1, 1)
			if c.agent == "copilot" {
				// Copilot's file has both spellings of each event; an
				// agent that ran both would snap and end twice: still
				// one turn.
				e.runAgentHooks(c.agent, "userPromptSubmitted", snap, 0)
				e.runAgentHooks(c.agent, "UserPromptSubmit", snap, 0)
				e.write("b.txt", "b\n")
				e.runAgentHooks(c.agent, "agentStop", hookPayload(t, c.end, e.dir), 0)
				e.runAgentHooks(c.agent, "Stop", hookPayload(t, c.end, e.dir), 0)
				if doc := e.log(sid); len(doc.Turns) != 2 || doc.Turns[0].Open || doc.Turns[0].Added != 1 {
					t.Errorf("both spellings of each event: want a second closed turn +1, got %+v", doc)
				}
			}
			if doc := e.log("default"); len(doc.Turns) != 0 {
				t.Errorf("default session has turns: %+v", doc)
			}
			if s := allHookLogs(t, e.storeRoot()); s != "" {
				t.Errorf("hook.log after successful hooks:\n%s", s)
			}
		})
	}
}

// TestHookAgentsErrors: through the command init wrote, a payload that
// is not JSON, one that names no folder and one whose folder does not
// exist fail with exit 1 (never 2), the agent's exact stdout and one
// line in hook.log; one without a session id records in the default
// session.
func TestHookAgentsErrors(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ agent, event string }{
		{"codex", "UserPromptSubmit"}, {"copilot", "userPromptSubmitted"}, {"copilot", "UserPromptSubmit"},
		{"cursor", "beforeSubmitPrompt"}, {"qwen", "UserPromptSubmit"},
	} {
		t.Run(c.agent+"/"+c.event, func(t *testing.T) {
			t.Parallel()
			e := newAgentEnv(t, c.agent)
			e.write("README.md", "teh\n")
			for _, f := range []struct{ payload, logWant string }{
				{"malformed.json", "not JSON"}, {"", "not JSON"},
				{c.agent + "_no_cwd.json", "names no folder"}, {c.agent + "_cwd_gone.json", "does not exist"},
			} {
				var payload []byte
				if f.payload != "" {
					payload = hookPayload(t, f.payload, e.dir)
				}
				before := allHookLogs(t, e.storeRoot())
				r := e.runAgentHooks(c.agent, c.event, payload, 1)[0]
				if strings.TrimSpace(r.stderr) == "" {
					t.Errorf("%s: nothing on stderr\n%s", f.payload, r)
				}
				added := strings.TrimPrefix(allHookLogs(t, e.storeRoot()), before)
				if strings.Count(added, "\n") != 1 || !strings.Contains(added, "hook "+c.agent+": ") || !strings.Contains(added, f.logWant) {
					t.Errorf("%s: hook.log gained %q, want one line for %s with %q", f.payload, added, c.agent, f.logWant)
				}
			}
			e.runAgentHooks(c.agent, c.event, hookPayload(t, c.agent+"_no_session_id.json", e.dir), 0)
			e.write("README.md", "the\n")
			if doc := e.log(""); len(doc.Turns) != 1 || !doc.Turns[0].Open || doc.Turns[0].Message != "fix the typo in README" {
				t.Errorf("want one open turn in the default session, got %+v", doc)
			}
		})
	}
}

// TestHookCursorUndo: a Cursor prompt that is /undo or /redo (with a
// count or not) is carried out by the hook as "turnback --session S
// undo" would, and blocked: the hook prints Cursor's JSON that stops
// the prompt and shows the user the command's output, exit 0; no turn
// is made for it.
func TestHookCursorUndo(t *testing.T) {
	t.Parallel()
	e := newAgentEnv(t, "cursor")
	e.write("a.txt", "a\n")
	snap := hookPayload(t, "cursor_before_submit_prompt.json", e.dir)
	sid := sessionInPayload(t, snap)
	before := e.tree()
	e.runAgentHooks("cursor", "beforeSubmitPrompt", snap, 0)
	e.write("a.txt", "A\n")
	e.write("b.txt", "b\n")
	e.runAgentHooks("cursor", "stop", hookPayload(t, "cursor_stop.json", e.dir), 0)
	after := e.tree()

	checkpoint := regexp.MustCompile(`checkpoint [0-9a-f]{12} \(turnback restore [0-9a-f]{12} goes back\)`)
	prompt := func(file, want string) {
		t.Helper()
		cmds := hookCommands(t, e.path(".cursor/hooks.json"), "beforeSubmitPrompt")
		cmd := exec.CommandContext(t.Context(), "sh", "-c", cmds[0])
		cmd.Dir, cmd.Env = e.home, e.environ()
		r := cliWait(t, cmd, hookPayload(t, file, e.dir), []string{file})
		got := checkpoint.ReplaceAllString(r.stdout, "checkpoint ID")
		if r.code != 0 || got != want {
			t.Errorf("%s: stdout %q, want %q\n%s", file, got, want, r)
		}
	}
	prompt("cursor_undo.json", `{"continue":false,"user_message":"undid 1 turn: 1 restored, 1 deleted, 0 brought back\n  M a.txt\n  D b.txt\ncheckpoint ID\n/redo brings it back."}`+"\n")
	treetest.Check(t, "after /undo", e.tree(), before)
	prompt("cursor_redo.json", `{"continue":false,"user_message":"redid 1 turn: 1 restored, 0 deleted, 1 brought back\n  M a.txt\n  A b.txt\ncheckpoint ID\n/undo takes it back again."}`+"\n")
	treetest.Check(t, "after /redo 1", e.tree(), after)
	prompt("cursor_redo.json", `{"continue":false,"user_message":"nothing to redo"}`+"\n")
	if doc := e.log(sid); len(doc.Turns) != 1 || doc.Turns[0].Open || doc.Turns[0].Undone {
		t.Errorf("want the one turn, closed and redone: %+v", doc)
	}
}
