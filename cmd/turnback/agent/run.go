package agent

import (
	"encoding/json"
	"regexp"
	"strings"
)

// runPrompt is a prompt that is one of the turnback commands a hook
// carries out: /undo or /redo, with a count or not.
var runPrompt = regexp.MustCompile(`^/(undo|redo)(?:\s+([1-9][0-9]{0,5}))?$`)

// RunCommand returns the command words ("undo", "2") of a prompt that
// is /undo or /redo, with a count or not; ok is false for any other.
func RunCommand(prompt string) (words []string, ok bool) {
	m := runPrompt.FindStringSubmatch(strings.TrimSpace(prompt))
	if m == nil {
		return nil, false
	}
	if m[2] != "" {
		return []string{m[1], m[2]}, true
	}
	return []string{m[1]}, true
}

// Blocked is what the hook prints, with its newline, to block the
// prompt it carried out (Run) and show the user out, the command's
// output; "" for an agent that cannot block.
func (a *Agent) Blocked(out string) string {
	if a.blocked == nil {
		return ""
	}
	b, _ := json.Marshal(a.blocked(strings.TrimRight(out, "\n")))
	return string(b) + "\n"
}
