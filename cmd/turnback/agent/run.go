package agent

import (
	"encoding/json"
	"fmt"
	"strings"
)

// RunOutput is the prompt hook's stdout, with its newline, after it
// carried out one of turnback's commands (Run), output being what the
// command printed and code its exit code. An agent whose prompt hook
// may block the prompt (Cursor) shows output to the user and the model
// never sees the prompt; another (Gemini CLI, whose command files
// expand to the prompt) gives it to the model to report to the user.
func (a *Agent) RunOutput(ev Event, code int, output string) string {
	output = strings.TrimRight(output, "\n")
	if a.blocked != nil {
		b, _ := json.Marshal(a.blocked(output))
		return string(b) + "\n"
	}
	name, args, _ := OwnCommand(ev.Prompt)
	if a.runText != nil {
		return string(Output(ev.Name, a.runText(name, args, code, output)))
	}
	text := fmt.Sprintf("turnback %s (exit code %d):\n%s\n\n%s", strings.Join(CommandArgs(name, args), " "), code, output, commandAsk(name))
	return string(Output(ev.Name, text))
}
