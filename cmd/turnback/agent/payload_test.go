package agent

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPayloads: every recorded payload of an agent
// (../testdata/hooks/<agent>_<case>.json, which the end-to-end hook
// tests replay too) normalises to the action turnback takes for its
// event, with the session (session_id, sessionId or conversation_id),
// folder (cwd, or the first workspace root) and prompt it carries; a payload that
// is not JSON is a *PayloadError for every agent.
func TestPayloads(t *testing.T) {
	want := map[string]Action{
		"claude_user_prompt_submit": Snap, "claude_user_prompt_submit_2": Snap, "claude_stop": End, "claude_session_end": End,
		"claude_pre_tool_use": None, "claude_subagent_stop": None,
		"claude_cwd_gone": Snap, "claude_no_cwd": Snap, "claude_no_session_id": Snap,
		"gemini_before_agent": Snap, "gemini_after_agent": End, "gemini_session_end": End, "gemini_before_tool": None,
		"gemini_cwd_gone": Snap, "gemini_no_cwd": Snap, "gemini_no_session_id": Snap,
		// Recorded from Gemini CLI 0.61.0 running TestGeminiRealSlashUndo's turns.
		"gemini_real_before_agent": Snap, "gemini_real_after_agent": End, "gemini_real_session_end": End, "gemini_real_before_agent_undo": Snap,
		"codex_user_prompt_submit": Snap, "codex_stop": End, "codex_pre_tool_use": None,
		"codex_cwd_gone": Snap, "codex_no_cwd": Snap, "codex_no_session_id": Snap,
		// Recorded from Codex CLI 0.171.0 running TestRealTurn/codex's turn.
		"codex_real_user_prompt_submit": Snap, "codex_real_stop": End,
		"copilot_user_prompt_submitted": Snap, "copilot_agent_stop": End,
		"copilot_vscode_user_prompt_submit": Snap, "copilot_vscode_stop": End,
		"copilot_cli_user_prompt_submit": Snap, "copilot_cli_stop": End,
		"copilot_cwd_gone": Snap, "copilot_no_cwd": Snap, "copilot_no_session_id": Snap,
		// Recorded from Copilot CLI 1.0.102 running TestRealTurn/copilot's turn:
		// for one prompt it fires both spellings of each event.
		"copilot_real_user_prompt_submitted": Snap, "copilot_real_user_prompt_submit": Snap,
		"copilot_real_agent_stop": End, "copilot_real_stop": End,
		"cursor_before_submit_prompt": Snap, "cursor_stop": End, "cursor_after_file_edit": None,
		"cursor_cwd_gone": Snap, "cursor_no_cwd": Snap, "cursor_no_session_id": Snap,
		"cursor_undo": Run, "cursor_redo": Run,
		"qwen_user_prompt_submit": Snap, "qwen_continuation": None, "qwen_stop": End, "qwen_session_end": End,
		"qwen_pre_tool_use": None, "qwen_cwd_gone": Snap, "qwen_no_cwd": Snap, "qwen_no_session_id": Snap,
		// Recorded from Qwen Code 0.24.4 running TestRealTurn/qwen's turn: the
		// tool result going back to the model fires UserPromptSubmit with "".
		"qwen_real_user_prompt_submit": Snap, "qwen_real_continuation": None, "qwen_real_stop": End,
		// turnback's own commands are prompts too (Plan does not snap for them).
		"claude_user_prompt_undo": Snap, "claude_user_prompt_question": Snap, "gemini_before_agent_undo": Snap,
	}
	// Copilot CLI's camel-case events do not name themselves.
	unnamed := map[string]string{
		"copilot_user_prompt_submitted": "userPromptSubmitted", "copilot_agent_stop": "agentStop",
		"copilot_cwd_gone": "userPromptSubmitted", "copilot_no_cwd": "userPromptSubmitted", "copilot_no_session_id": "userPromptSubmitted",
		"copilot_real_user_prompt_submitted": "userPromptSubmitted", "copilot_real_agent_stop": "agentStop",
	}
	files, err := filepath.Glob(filepath.Join("..", "testdata", "hooks", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no recorded payloads: %v", err)
	}
	seen := 0
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".json")
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if name == "malformed" {
			for _, a := range All() {
				var bad *PayloadError
				if _, err := a.Parse(data); !errors.As(err, &bad) {
					t.Errorf("%s: Parse(%s) = %v; want a *PayloadError", a.Name, name, err)
				}
			}
			continue
		}
		agentName, _, _ := strings.Cut(name, "_")
		if agentName == "opencode" {
			continue // its payloads nest their fields: TestOpenCodePayloads
		}
		a, ok := Lookup(agentName)
		if !ok {
			t.Errorf("%s: no agent %q", name, agentName)
			continue
		}
		action, ok := want[name]
		if !ok {
			t.Errorf("%s: recorded, but the test does not say its action", name)
			continue
		}
		seen++
		ev, err := a.Parse(data)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		var raw map[string]any
		if err := json.Unmarshal(data, &raw); err != nil {
			t.Fatal(err)
		}
		str := func(keys ...string) string {
			for _, k := range keys {
				if s, _ := raw[k].(string); s != "" {
					return s
				}
				if l, _ := raw[k].([]any); len(l) > 0 {
					return l[0].(string)
				}
			}
			return ""
		}
		event := str("hook_event_name")
		if event == "" {
			event = unnamed[name]
		}
		session := str("session_id", "sessionId", "conversation_id")
		if ev.Action != action || ev.Name != event || ev.Session != session || ev.Cwd != str("cwd", "workspace_roots") || ev.Prompt != str("prompt") {
			t.Errorf("%s: %+v; want action %v, event %q, session %q and the payload's cwd and prompt", name, ev, action, event, session)
		}
	}
	if seen != len(want) {
		t.Errorf("%d payloads checked; want %d", seen, len(want))
	}
}
