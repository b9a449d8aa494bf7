package agent

import (
	"encoding/json"
	"path/filepath"
	"testing"
)

// TestPlanCopilotShellEscape: a Copilot CLI prompt that is a shell
// command ("! turnback undo") starts no turn, should the prompt hook see
// it; any other prompt snaps, and other agents snap a "!" prompt.
func TestPlanCopilotShellEscape(t *testing.T) {
	dir := t.TempDir()
	env := Env{Getenv: func(string) string { return "" }, Getwd: func() (string, error) { return dir, nil }, Store: filepath.Join(t.TempDir(), "s")}
	for _, c := range []struct {
		a      *Agent
		prompt string
		want   Action
	}{
		{copilot, "! turnback undo", None},
		{copilot, "  !turnback turns", None},
		{copilot, "Add a login form", Snap},
		{copilot, "Why does ! mean not?", Snap},
		{claude, "! ls", Snap},
	} {
		data, _ := json.Marshal(map[string]string{"sessionId": "s1", "session_id": "s1", "cwd": dir, "hook_event_name": "UserPromptSubmit", "prompt": c.prompt})
		if c.a == copilot {
			data, _ = json.Marshal(map[string]string{"sessionId": "s1", "cwd": dir, "prompt": c.prompt})
		}
		p, err := c.a.Plan(data, env)
		if err != nil || p.Event.Action != c.want {
			t.Errorf("%s %q: action %v, %v; want %v", c.a.Name, c.prompt, p.Event.Action, err, c.want)
		}
	}
}

// TestPromptLine: the message compared is the one the store keeps.
func TestPromptLine(t *testing.T) {
	for in, want := range map[string]string{
		"  Add a form\nwith fields": "Add a form",
		"\n\n":                      "",
		"one\r\ntwo":                "one",
	} {
		if got := promptLine(in); got != want {
			t.Errorf("promptLine(%q) = %q, want %q", in, got, want)
		}
	}
}
