package agent

import "fmt"

// gemini is Gemini CLI: BeforeAgent starts a turn, AfterAgent and
// SessionEnd end it. Hooks live in .gemini/settings.json, named, with
// their timeout in milliseconds; Gemini CLI parses the hook's stdout as
// JSON, so the hook prints "{}", or the JSON that tells the model
// (Output). It sets GEMINI_PROJECT_DIR, and CLAUDE_PROJECT_DIR for
// hooks written for Claude Code. Its project commands are TOML files in
// .gemini/commands that expand into a prompt; a command's shell does not
// learn the session, so turnback's commands expand to "/undo ARGS" and
// the BeforeAgent hook, which knows the session, carries them out and
// gives the model the result (RunsCommands).
var gemini = &Agent{
	Name:       "gemini",
	Title:      "Gemini CLI",
	ProjectEnv: []string{"GEMINI_PROJECT_DIR", "CLAUDE_PROJECT_DIR"},
	JSONOut:    true,
	Settings:   ".gemini/settings.json",
	Events:     []string{"BeforeAgent", "AfterAgent", "SessionEnd"},
	entry: func(command string) hookEntry {
		return hookEntry{Name: "turnback", Type: "command", Command: command, Timeout: 30000}
	},
	parse:        parseCommon([]string{"BeforeAgent"}, []string{"AfterAgent", "SessionEnd"}),
	Context:      true,
	CommandDir:   ".gemini/commands",
	RunsCommands: true,
	commandFile:  promptCommand,
}

// promptCommand is the command file of /name for Gemini CLI and Qwen
// Code: a TOML file whose prompt is "/name ARGS", which the prompt hook
// carries out.
func promptCommand(name, _ string) (string, []byte) {
	args := ""
	if name != "turns" {
		args = " {{args}}"
	}
	return name + ".toml", fmt.Appendf(nil, "# %s: turnback's /%s for this conversation's session\ndescription = %q\nprompt = \"/%s%s\"\n",
		commandMark, name, commandSummary[name], name, args)
}
