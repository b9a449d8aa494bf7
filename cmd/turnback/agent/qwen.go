package agent

// qwen is Qwen Code: UserPromptSubmit starts a turn, Stop and
// SessionEnd end it. Hooks live in .qwen/settings.json in Claude Code's
// shape, named, with their timeout in milliseconds; it sets
// QWEN_PROJECT_DIR. Qwen Code also fires UserPromptSubmit when it sends
// the results of tool calls back to the model, in the middle of a turn,
// with no prompt text: only a payload with a prompt snaps (a snap there
// would split the turn in two). Its prompt hook, as Claude Code's,
// gives the model hookSpecificOutput.additionalContext (after an undo
// or redo, the notice; Context); otherwise the hook prints nothing, as
// plain text would reach the model. Its project commands are TOML files
// in .qwen/commands, as Gemini CLI's: turnback's expand to the prompt
// "/undo ARGS", which the prompt hook carries out (RunsCommands).
var qwen = &Agent{
	Name:       "qwen",
	Title:      "Qwen Code",
	ProjectEnv: []string{"QWEN_PROJECT_DIR", "CLAUDE_PROJECT_DIR"},
	Settings:   ".qwen/settings.json",
	Events:     []string{"UserPromptSubmit", "Stop", "SessionEnd"},
	entry: func(command string) hookEntry {
		return hookEntry{Name: "turnback", Type: "command", Command: command, Timeout: 30000}
	},
	parse: func(data []byte) (Event, error) {
		ev, err := parseCommon([]string{"UserPromptSubmit"}, []string{"Stop", "SessionEnd"})(data)
		if ev.Action == Snap && blank(ev.Prompt) {
			ev.Action = None // a tool-result continuation
		}
		return ev, err
	},
	Context:      true,
	CommandDir:   ".qwen/commands",
	RunsCommands: true,
	commandFile:  promptCommand,
}
