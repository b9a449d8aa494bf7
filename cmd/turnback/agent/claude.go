package agent

// claude is Claude Code: UserPromptSubmit starts a turn, Stop and
// SessionEnd end it. Hooks live in .claude/settings.json, with their
// timeout in seconds; anything the hook prints on stdout is given to
// the model, so it prints nothing.
var claude = &Agent{
	Name:       "claude",
	Title:      "Claude Code",
	ProjectEnv: []string{"CLAUDE_PROJECT_DIR"},
	Settings:   ".claude/settings.json",
	Events:     []string{"UserPromptSubmit", "Stop", "SessionEnd"},
	entry: func(command string) hookEntry {
		return hookEntry{Type: "command", Command: command, Timeout: 30}
	},
	parse: parseCommon([]string{"UserPromptSubmit"}, []string{"Stop", "SessionEnd"}),
}
