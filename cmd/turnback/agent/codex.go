package agent

// codex is Codex CLI: UserPromptSubmit starts a turn, Stop ends it.
// Hooks live in .codex/hooks.json (user-level: ~/.codex/hooks.json, or
// $CODEX_HOME/hooks.json), in Claude Code's shape, with their timeout
// in seconds. Plain text on a UserPromptSubmit hook's stdout is given
// to the model as context, and a Stop hook's stdout must be JSON when
// it is not empty: the hook prints nothing.
var codex = &Agent{
	Name:     "codex",
	Title:    "Codex CLI",
	Settings: ".codex/hooks.json",
	HomeEnv:  "CODEX_HOME",
	Events:   []string{"UserPromptSubmit", "Stop"},
	entry: func(command string) hookEntry {
		return hookEntry{Type: "command", Command: command, Timeout: 30}
	},
	parse: parseCommon([]string{"UserPromptSubmit"}, []string{"Stop"}),
}
