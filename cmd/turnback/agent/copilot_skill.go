package agent

import (
	"fmt"
	"strings"
)

// Copilot's turnback commands are skills: Copilot CLI loads
// .github/skills/NAME/SKILL.md (~/.copilot/skills for init --global),
// lists each skill to the model and offers it a "skill" tool that loads
// one. Copilot has its own /undo, so turnback's skills are /tb-undo,
// /tb-redo and /tb-turns. A skill's text tells the model to run turnback
// with its bash tool, for the session Copilot names in the tool's
// environment (COPILOT_AGENT_SESSION_ID, the hooks' sessionId), and to
// show the report to the user.

// copilotPrefix begins the names of turnback's Copilot skills.
const copilotPrefix = "tb-"

// copilotSkill is the skill file of /tb-name, running bin. Its
// description is quoted: Copilot skips a skill whose front matter is
// not YAML, as a plain value holding ": " is not.
func copilotSkill(name, bin string) (string, []byte) {
	line := CopilotCommandLine(name, bin)
	args := "Add what the user typed after /" + copilotPrefix + name + " (a number N, --merge or --force) to the command line as it is; add nothing else."
	if name == "turns" {
		args = "Run it as it is."
	}
	return copilotPrefix + name + "/SKILL.md", fmt.Appendf(nil, `---
# %s: turnback's /%s%s for this conversation's session
name: %s%s
description: %q
---
Run this command with the bash tool. %s

`+"```sh\n%s\n```"+`

%s
`, commandMark, copilotPrefix, name, copilotPrefix, name,
		strings.Replace(commandSummary[name], "/"+name, "/"+copilotPrefix+name, 1)+". Use when the user types /"+copilotPrefix+name+".",
		args, line, copilotAsk(name))
}

// CopilotCommandLine is the shell command a Copilot skill runs for
// /tb-name: turnback for the conversation's own session, as an own
// command (--agent: its report on stdout with exit code 0).
func CopilotCommandLine(name, bin string) string {
	return bin + ` --agent copilot --session "${COPILOT_AGENT_SESSION_ID:-default}" ` + cliCommand(name)
}

// unprefixed is prompt with an agent's prefixed own command (/tb-undo)
// spelt as OwnCommand knows it (/undo), for an agent whose prompt hook
// does not carry them out (Copilot): such a prompt is never a turn.
func (a *Agent) unprefixed(prompt string) string {
	if a.cmdPrefix == "" || a.RunsCommands {
		return prompt
	}
	p := strings.TrimSpace(prompt)
	if rest, ok := strings.CutPrefix(p, "/"+a.cmdPrefix); ok {
		return "/" + rest
	}
	return prompt
}

// copilotAsk is what a skill asks of the model once the command ran.
func copilotAsk(name string) string {
	if name == "turns" {
		return "Its output is turnback's list of the turns. Show it to the user as it is; do not change any files for it."
	}
	return "Its output is turnback's report: turnback changed the files, or it says why it changed nothing. " +
		"Show the report to the user as it is. Do not change any files for it, and do not run the commands it names " +
		"(such as /" + copilotPrefix + name + " --force): the user types them here."
}
