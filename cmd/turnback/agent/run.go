package agent

import (
	"encoding/json"
	"strings"
)

// RunOutput is the prompt hook's stdout, with its newline, after it
// carried out one of turnback's commands (Run), report being what the
// command printed (it runs as an own command: its report says every
// outcome) and code the exit code the command stands for. An agent
// whose prompt hook may block the prompt (Cursor) shows the report to
// the user and the model never sees the prompt; another (Gemini CLI,
// Codex CLI, Qwen Code, OpenCode) gives it to the model, which passes
// it on to the user, and one that shows a hook's message to the user
// (ShowsUser: Codex CLI) shows it there too.
func (a *Agent) RunOutput(ev Event, code int, report string) string {
	report = strings.TrimRight(report, "\n")
	if a.blocked != nil {
		b, _ := json.Marshal(a.blocked(report))
		return string(b) + "\n"
	}
	name, args, _ := OwnCommand(ev.Prompt)
	if a.runText != nil {
		return string(Output(ev.Name, a.runText(name, args, code, report)))
	}
	text := "turnback carried out " + a.Slash(name, args...) + " (the user's command, not yours); its report:\n" + report + "\n\n" + a.commandAsk(name)
	user := ""
	if a.ShowsUser {
		user = "turnback " + a.Slash(name, args...) + ":\n" + report
	}
	return string(output(ev.Name, text, user))
}
