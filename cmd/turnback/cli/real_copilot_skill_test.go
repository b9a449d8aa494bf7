package cli

// The stand-in model's part in Copilot CLI's skills (init --copilot's
// /tb-undo, /tb-redo, /tb-turns), as a model that follows a skill: asked
// with a prompt naming one and offered Copilot's skill tool, it loads the
// skill; given the skill's text (Copilot sends it as a user message,
// <skill-context name="tb-undo">), it runs the skill's sh block with the
// bash tool, adding what the user typed after the command.

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
)

// skillPrompt finds a prompt naming one of turnback's skills: the name
// and what follows on the line.
var skillPrompt = regexp.MustCompile(`(?m)^/(tb-(?:undo|redo|turns))\b(.*)$`)

// skillContext finds the text of a loaded skill and its sh block.
var skillContext = regexp.MustCompile("(?s)^<skill-context name=\"(tb-[a-z]+)\">.*?```sh\n([^\n]*)\n```")

// skillStep is the stand-in's tool call for a request of Copilot CLI
// in a skill's course (nil: none): the skill tool for a prompt naming
// a skill, the bash tool for the skill's text.
func skillStep(body []byte, n int) map[string]any {
	var req chatRequest
	if json.Unmarshal(body, &req) != nil || len(req.Messages) == 0 {
		return nil
	}
	offered := map[string]bool{}
	for _, tool := range req.Tools {
		offered[tool.Function.Name] = true
	}
	text := func(i int) string {
		var s string
		_ = json.Unmarshal(req.Messages[i].Content, &s)
		return s
	}
	call := func(name string, args map[string]string) map[string]any {
		a, _ := json.Marshal(args)
		return map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{map[string]any{
			"index": 0, "id": fmt.Sprintf("call_%d", n), "type": "function",
			"function": map[string]any{"name": name, "arguments": string(a)}}}}
	}
	last := len(req.Messages) - 1
	if req.Messages[last].Role != "user" {
		return nil
	}
	if m := skillPrompt.FindStringSubmatch(text(last)); m != nil && offered["skill"] {
		return call("skill", map[string]string{"skill": m[1]})
	}
	m := skillContext.FindStringSubmatch(text(last))
	if m == nil || !offered["bash"] {
		return nil
	}
	line := m[2]
	for i := last - 1; i >= 0; i-- { // the user's arguments
		if p := skillPrompt.FindStringSubmatch(text(i)); req.Messages[i].Role == "user" && p != nil && p[1] == m[1] {
			if args := strings.TrimSpace(p[2]); args != "" {
				line += " " + args
			}
			break
		}
	}
	return call("bash", map[string]string{"command": line, "description": "Run turnback's " + m[1]})
}

// slash is s with turnback's command names as the client's user types
// them (/undo: /tb-undo in Copilot).
func (a *realAgent) slash(s string) string {
	if a.cmdPrefix == "" {
		return s
	}
	for _, c := range []string{"undo", "redo", "turns"} {
		s = strings.ReplaceAll(s, "/"+c, "/"+a.cmdPrefix+c)
	}
	return s
}

// slashAll is slash of every one of ss.
func (a *realAgent) slashAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = a.slash(s)
	}
	return out
}
