package agent

// codex is Codex CLI: UserPromptSubmit starts a turn, Stop ends it.
// Hooks live in .codex/hooks.json (user-level: ~/.codex/hooks.json, or
// $CODEX_HOME/hooks.json), in Claude Code's shape, with their timeout
// in seconds. A UserPromptSubmit hook's stdout is given to the model
// (hookSpecificOutput.additionalContext: after an undo or redo, the
// notice; Context), and a Stop hook's stdout must be JSON when it is
// not empty: otherwise the hook prints nothing. Codex has no project
// slash commands: a prompt that is /undo, /redo or /turns reaches the
// prompt hook as typed, which carries it out (RunsCommands) and gives
// the report to the model (additionalContext, which Codex inserts as a
// developer message after the prompt) and to the user (systemMessage,
// ShowsUser). Blocking the prompt would show the user only that a hook
// blocked it.
var codex = &Agent{
	Name:     "codex",
	Title:    "Codex CLI",
	Settings: ".codex/hooks.json",
	HomeEnv:  "CODEX_HOME",
	Events:   []string{"UserPromptSubmit", "Stop"},
	entry: func(command string) hookEntry {
		return hookEntry{Type: "command", Command: command, Timeout: 30}
	},
	parse:        parseCommon([]string{"UserPromptSubmit"}, []string{"Stop"}),
	Context:      true,
	RunsCommands: true,
	ShowsUser:    true,
	Trust: "Codex runs a project's hooks only in a project you trust, and a hook only once you trust it: " +
		"start codex in the folder, trust it, and trust turnback's hooks in /hooks (codex exec skips hooks not yet trusted without a word)",
}
