package cli

// End-to-end tests of undo from inside the agents that have no command
// files: the prompt hook of Codex CLI and Qwen Code tells the model what
// an undo changed, Copilot's and Cursor's print only what they always
// print; a prompt that is /undo never snaps; Cursor carries out /turns.

import (
	"encoding/json"
	"strings"
	"testing"
)

// withPrompt is payload with its prompt replaced.
func withPrompt(t *testing.T, payload []byte, prompt string) []byte {
	t.Helper()
	var ev map[string]any
	if err := json.Unmarshal(payload, &ev); err != nil {
		t.Fatal(err)
	}
	ev["prompt"] = prompt
	out, err := json.Marshal(ev)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// modelContext reads the one line of JSON a hook prints to give the
// model text: its event name and the text.
func modelContext(t *testing.T, stdout string) (event, text string) {
	t.Helper()
	var out struct {
		HookSpecificOutput struct {
			HookEventName, AdditionalContext string
		}
	}
	cliOneJSON(t, stdout, &out)
	return out.HookSpecificOutput.HookEventName, out.HookSpecificOutput.AdditionalContext
}

// TestHookAgentsTellModel: after a turn and an undo of its session, the
// next prompt hook of Codex CLI and Qwen Code prints, once, the JSON that
// tells the model which path the undo reverted; Copilot's and Cursor's
// print what they always print. A prompt /undo makes no turn for any.
func TestHookAgentsTellModel(t *testing.T) {
	t.Parallel()
	payloads := map[string][2]string{ // the prompt's and the end's
		"codex":   {"codex_user_prompt_submit.json", "codex_stop.json"},
		"qwen":    {"qwen_user_prompt_submit.json", "qwen_stop.json"},
		"copilot": {"copilot_vscode_user_prompt_submit.json", "copilot_vscode_stop.json"},
		"cursor":  {"cursor_before_submit_prompt.json", "cursor_stop.json"},
	}
	for agent, p := range payloads {
		t.Run(agent, func(t *testing.T) {
			t.Parallel()
			e := newHookEnv(t)
			e.write("a.txt", "a\n")
			prompt := hookPayload(t, p[0], e.dir)
			sid := sessionInPayload(t, prompt)
			e.hook(agent, prompt, 0)
			e.write("a.txt", "A\n")
			e.hook(agent, hookPayload(t, p[1], e.dir), 0)
			switch agent {
			case "cursor": // Cursor carries /undo out (TestHookCursorUndo)
				e.ok("--session", sid, "undo")
			case "copilot": // a /undo prompt only makes no turn
				e.hook(agent, withPrompt(t, prompt, "/undo"), 0)
				if doc := e.log(sid); len(doc.Turns) != 1 || doc.Turns[0].Open {
					t.Fatalf("the prompt /undo made a turn: %+v", doc)
				}
				e.ok("--session", sid, "undo")
			default: // the hook carries /undo out, and gives the model its report
				r := e.exec("", withPrompt(t, prompt, "/undo"), "hook", agent)
				event, text := modelContext(t, r.stdout)
				if r.code != 0 || event != "UserPromptSubmit" ||
					!strings.HasPrefix(text, "turnback carried out /undo (the user's command, not yours); its report:\nundid 1 turn: 1 restored, 0 deleted, 0 brought back\n  M a.txt\n") {
					t.Errorf("the prompt /undo:\n%s", r)
				}
				if doc := e.log(sid); len(doc.Turns) != 1 || !doc.Turns[0].Undone {
					t.Fatalf("the prompt /undo made a turn, or undid none: %+v", doc)
				}
			}

			r := e.exec("", prompt, "hook", agent)
			if agent == "codex" || agent == "qwen" {
				event, text := modelContext(t, r.stdout)
				if r.code != 0 || event != "UserPromptSubmit" || !strings.Contains(text, "- undid turn 1: a.txt\n") {
					t.Errorf("the prompt after the undo:\n%s", r)
				}
			} else {
				checkHookResult(t, agent, r, 0)
			}
			e.hook(agent, hookPayload(t, p[1], e.dir), 0)
			e.hook(agent, prompt, 0) // told once: now nothing
		})
	}
}

// TestHookCursorTurns: /turns in Cursor's chat is carried out by the
// hook as "turnback --session S log" and shown to the user, the prompt
// blocked; it makes no turn.
func TestHookCursorTurns(t *testing.T) {
	t.Parallel()
	e := newAgentEnv(t, "cursor")
	snap := hookPayload(t, "cursor_before_submit_prompt.json", e.dir)
	sid := sessionInPayload(t, snap)
	e.runAgentHooks("cursor", "beforeSubmitPrompt", snap, 0)
	e.write("a.txt", "A\n")
	e.runAgentHooks("cursor", "stop", hookPayload(t, "cursor_stop.json", e.dir), 0)

	r := e.exec("", withPrompt(t, snap, "/turns"), "hook", "cursor")
	var out struct {
		Continue    *bool  `json:"continue"`
		UserMessage string `json:"user_message"`
	}
	cliOneJSON(t, r.stdout, &out)
	if r.code != 0 || out.Continue == nil || *out.Continue || !strings.Contains(out.UserMessage, "+1 ~0 -0") {
		t.Errorf("/turns:\n%s", r)
	}
	if doc := e.log(sid); len(doc.Turns) != 1 || doc.Turns[0].Open {
		t.Errorf("want the one turn, closed: %+v", doc)
	}
}
