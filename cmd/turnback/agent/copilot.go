package agent

import "strings"

// copilot is GitHub Copilot, its CLI and VS Code's agent, which both
// read .github/hooks/*.json: init writes its own file,
// .github/hooks/turnback.json (user-level: ~/.copilot/hooks/turnback.json,
// or $COPILOT_HOME/hooks). Copilot CLI runs userPromptSubmitted (snap)
// and agentStop (end), entries {type, bash, powershell, timeoutSec};
// VS Code runs UserPromptSubmit and Stop, entries {type, command,
// timeout}: the file holds both, one set for each. Copilot CLI 1.0 runs
// both sets for one prompt (at once): the second prompt event keeps the
// first one's turn open (twice.go). Copilot CLI's
// camel-case events send sessionId and no event name (an event with a
// prompt is the prompt's, one without is agentStop: init installs no
// other); PascalCase events send hook_event_name, and session_id or
// sessionId. Copilot ignores what a prompt hook prints: the hook prints
// nothing, and turnback's commands are skills (copilot_skill.go).
var copilot = &Agent{
	Name:     "copilot",
	Title:    "GitHub Copilot (CLI and VS Code)",
	Settings: ".github/hooks/turnback.json",
	Global:   ".copilot/hooks/turnback.json",
	HomeEnv:  "COPILOT_HOME",
	Events:   []string{"userPromptSubmitted", "agentStop", "UserPromptSubmit", "Stop"},
	version:  1,
	// Copilot CLI runs both spellings of the prompt hook for one prompt.
	promptTwice: true,
	// It runs no project commands and shows the user nothing a prompt
	// hook prints: turnback's commands are skills the model carries out
	// (copilot_skill.go); its "!" runs a shell command.
	CommandDir:       ".github/skills",
	GlobalCommandDir: ".copilot/skills",
	commandFile:      copilotSkill,
	cmdPrefix:        copilotPrefix,
	UndoHow: "In Copilot CLI type /tb-undo, /tb-redo or /tb-turns: skills that have the model run turnback for the conversation (its bash tool asks first unless allowed). " +
		"Or type ! turnback undo (its shell escape), or run turnback undo in another terminal in the folder.",
	element: func(event, command string) any {
		if event[0] >= 'A' && event[0] <= 'Z' { // VS Code's spelling
			return hookEntry{Type: "command", Command: command, Timeout: 30}
		}
		e := struct {
			Type       string `json:"type"`
			Bash       string `json:"bash"`
			PowerShell string `json:"powershell,omitempty"`
			TimeoutSec int    `json:"timeoutSec"`
		}{"command", command, "", 30}
		if !strings.ContainsAny(command, `'"`) { // a quoted path is sh's quoting
			e.PowerShell = command
		}
		return e
	},
	parse: func(data []byte) (Event, error) {
		p, err := readPayload(data)
		if err != nil {
			return Event{}, err
		}
		ev := p.event()
		if ev.Name == "" {
			ev.Name = "agentStop"
			if p.has("prompt") {
				ev.Name = "userPromptSubmitted"
			}
		}
		return classify(ev, []string{"userPromptSubmitted", "UserPromptSubmit"}, []string{"agentStop", "Stop"}), nil
	},
}
