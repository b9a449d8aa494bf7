package agent

import "fmt"

// claude is Claude Code: UserPromptSubmit starts a turn, Stop and
// SessionEnd end it. Hooks live in .claude/settings.json, with their
// timeout in seconds; anything the hook prints on stdout is given to
// the model, so it prints nothing but, after an undo or redo, the JSON
// that tells the model (Output). Its project commands are markdown files
// in .claude/commands whose "!`...`" line Claude Code runs, with
// ${CLAUDE_SESSION_ID} (the conversation's session id) and $ARGUMENTS
// (what follows the command) replaced, giving the output to the model.
var claude = &Agent{
	Name:       "claude",
	Title:      "Claude Code",
	ProjectEnv: []string{"CLAUDE_PROJECT_DIR"},
	Settings:   ".claude/settings.json",
	Events:     []string{"UserPromptSubmit", "Stop", "SessionEnd"},
	entry: func(command string) hookEntry {
		return hookEntry{Type: "command", Command: command, Timeout: 30}
	},
	parse:       parseCommon([]string{"UserPromptSubmit"}, []string{"Stop", "SessionEnd"}),
	Context:     true,
	CommandDir:  ".claude/commands",
	commandFile: claudeCommand,
}

// claudeCommand is the command file of /name.
func claudeCommand(name, bin string) (string, []byte) {
	hint := ""
	if name != "turns" {
		hint = "argument-hint: \"[N]\"\n"
	}
	return name + ".md", fmt.Appendf(nil, `---
# %s: turnback's /%s for this conversation's session
description: %q
%sallowed-tools: %q
---
!`+"`%s`"+`

%s
`, commandMark, name, commandSummary[name], hint, "Bash("+bin+":*)", ClaudeCommandLine(name, bin), commandAsk(name))
}

// ClaudeCommandLine is the shell command a Claude Code command file
// runs for /name: turnback for the conversation's own session, as an
// own command of Claude Code (--agent: its report, whatever the outcome,
// on stdout with exit code 0, which Claude Code gives the model; a
// failed command would show only that it failed).
func ClaudeCommandLine(name, bin string) string {
	line := bin + ` --agent claude --session "${CLAUDE_SESSION_ID}" ` + cliCommand(name)
	if name != "turns" {
		line += " $ARGUMENTS"
	}
	return line
}
