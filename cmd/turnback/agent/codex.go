package agent

// codex is Codex CLI: UserPromptSubmit starts a turn, Stop ends it.
// Hooks live in .codex/hooks.json (user-level: ~/.codex/hooks.json, or
// $CODEX_HOME/hooks.json), in Claude Code's shape, with their timeout
// in seconds. A UserPromptSubmit hook's stdout is given to the model
// (hookSpecificOutput.additionalContext: after an undo or redo, the
// notice; Context), and a Stop hook's stdout must be JSON when it is
// not empty: otherwise the hook prints nothing. Codex has no project
// slash commands: a prompt that is /undo is not snapped, nothing more.
var codex = &Agent{
	Name:     "codex",
	Title:    "Codex CLI",
	Settings: ".codex/hooks.json",
	HomeEnv:  "CODEX_HOME",
	Events:   []string{"UserPromptSubmit", "Stop"},
	entry: func(command string) hookEntry {
		return hookEntry{Type: "command", Command: command, Timeout: 30}
	},
	parse:   parseCommon([]string{"UserPromptSubmit"}, []string{"Stop"}),
	Context: true,
	Trust: "Codex runs a project's hooks only in a project you trust, and a hook only once you trust it: " +
		"start codex in the folder, trust it, and trust turnback's hooks in /hooks (codex exec skips hooks not yet trusted without a word)",
}
