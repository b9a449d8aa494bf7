package agent

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// codexSchema is what Codex's published hook schemas
// (codex-rs/hooks/schema/generated/*.command.{input,output}.schema.json
// in openai/codex; user-prompt-submit and stop, read at commits bde5e187
// and 6fff509b) require of one object, restated here rather than copied:
// the keys it may hold, the keys it must hold, and the string values some
// keys are limited to. Each schema has additionalProperties false.
type codexSchema struct {
	allowed, required []string
	values            map[string][]string
}

// check fails t unless the JSON object data fits s.
func (s codexSchema) check(t *testing.T, what string, data []byte) map[string]json.RawMessage {
	t.Helper()
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(data, &obj); err != nil {
		t.Fatalf("%s: not a JSON object: %v\n%s", what, err, data)
	}
	for k, v := range obj {
		if !slices.Contains(s.allowed, k) {
			t.Errorf("%s: key %q is not in Codex's schema", what, k)
		}
		if vals, ok := s.values[k]; ok {
			var str string
			if json.Unmarshal(v, &str) != nil || !slices.Contains(vals, str) {
				t.Errorf("%s: %s = %s, Codex's schema allows %q", what, k, v, vals)
			}
		}
	}
	for _, k := range s.required {
		if _, ok := obj[k]; !ok {
			t.Errorf("%s: required key %q missing", what, k)
		}
	}
	return obj
}

var codexModes = []string{"default", "acceptEdits", "plan", "dontAsk", "bypassPermissions"}

// TestCodexHookSchemas: the payloads recorded from the real Codex CLI
// (testdata/hooks/codex_real_*) fit Codex's published input schemas, so
// the recordings are what Codex documents; and what the prompt hook
// prints for Codex (the notice, Output) fits the UserPromptSubmit output
// schema. The Stop hook prints nothing, which Codex accepts (its stdout
// must be JSON only when not empty).
func TestCodexHookSchemas(t *testing.T) {
	submit := codexSchema{
		allowed:  []string{"cwd", "hook_event_name", "model", "permission_mode", "prompt", "session_id", "transcript_path", "turn_id"},
		required: []string{"cwd", "hook_event_name", "model", "permission_mode", "prompt", "session_id", "transcript_path", "turn_id"},
		values:   map[string][]string{"hook_event_name": {"UserPromptSubmit"}, "permission_mode": codexModes},
	}
	stop := codexSchema{
		allowed: []string{"cwd", "hook_event_name", "last_assistant_message", "model", "permission_mode", "session_id",
			"stop_hook_active", "transcript_path", "turn_id"},
		required: []string{"cwd", "hook_event_name", "last_assistant_message", "model", "permission_mode", "session_id",
			"stop_hook_active", "transcript_path", "turn_id"},
		values: map[string][]string{"hook_event_name": {"Stop"}, "permission_mode": codexModes},
	}
	for name, s := range map[string]codexSchema{"codex_real_user_prompt_submit": submit, "codex_real_stop": stop} {
		data, err := os.ReadFile(filepath.Join("..", "testdata", "hooks", name+".json"))
		if err != nil {
			t.Fatal(err)
		}
		s.check(t, name, data)
		if _, err := codex.Parse(data); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}

	out := Output("UserPromptSubmit", "turnback: since the last prompt the user reverted file changes with turnback:\n- undid turn 1: hello.txt")
	top := codexSchema{allowed: []string{"continue", "decision", "hookSpecificOutput", "reason", "stopReason", "suppressOutput", "systemMessage"}}
	obj := top.check(t, "the prompt hook's notice", out)
	specific := codexSchema{
		allowed:  []string{"additionalContext", "hookEventName"},
		required: []string{"hookEventName"},
		values:   map[string][]string{"hookEventName": {"UserPromptSubmit"}},
	}
	specific.check(t, "its hookSpecificOutput", obj["hookSpecificOutput"])
	var ctx struct {
		HookSpecificOutput struct {
			AdditionalContext *string `json:"additionalContext"`
		} `json:"hookSpecificOutput"`
	}
	if json.Unmarshal(out, &ctx) != nil || ctx.HookSpecificOutput.AdditionalContext == nil {
		t.Errorf("additionalContext is not a string: %s", out)
	}
}
