package agent

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"
)

// opencode is OpenCode: it has no hooks that run a command, but loads
// JavaScript plugins from .opencode/plugins. Init writes one,
// turnback.js (opencode_plugin.js with the binary put in), which runs
// "turnback hook opencode" with a payload it builds from OpenCode's own
// objects: {hook_event_name, cwd, input, output} for chat.message (a
// message starts a turn: snap) and command.execute.before (one of
// turnback's commands: run), {hook_event_name, cwd, event} for the
// session.idle event (end). The plugin gives the model the
// additionalContext of the hook's JSON output. OpenCode lists its
// built-in, git-based /undo and /redo beside a project's commands, so
// turnback's are /tb-undo, /tb-redo and /tb-turns.
var opencode = &Agent{
	Name:             "opencode",
	Title:            "OpenCode",
	Settings:         ".opencode/plugins/turnback.js",
	Global:           ".config/opencode/plugins/turnback.js",
	HomeEnv:          "XDG_CONFIG_HOME",
	Events:           []string{"chat.message", "session.idle", "command.execute.before"},
	parse:            parseOpenCode,
	Context:          true,
	CommandDir:       ".opencode/commands",
	GlobalCommandDir: ".config/opencode/commands",
	commandFile:      opencodeCommand,
	RunsCommands:     true,
	plugin:           opencodePlugin,
	runText:          opencodeRunText,
	cmdPrefix:        opencodePrefix,
}

// opencodePrefix begins the name of turnback's OpenCode commands.
const opencodePrefix = "tb-"

//go:embed opencode_plugin.js
var opencodePluginJS string

// opencodePlugin is the plugin file that runs bin (the hooks' binary,
// sh-quoted when it needs it).
func opencodePlugin(bin string) []byte {
	b, _ := json.Marshal(shUnquote(bin))
	return []byte(strings.Replace(opencodePluginJS, `const BIN = "turnback"`, "const BIN = "+string(b), 1))
}

// shUnquote undoes Agent.command's quoting of a path for sh.
func shUnquote(s string) string {
	if len(s) >= 2 && s[0] == '\'' && s[len(s)-1] == '\'' {
		return strings.ReplaceAll(s[1:len(s)-1], `'\''`, `'`)
	}
	return s
}

// opencodeCommand is the command file of /tb-name. Its text is what
// OpenCode sends when the plugin does not run: the plugin replaces it
// with turnback's report.
func opencodeCommand(name, _ string) (string, []byte) {
	args := ""
	if name != "turns" {
		args = " $ARGUMENTS"
	}
	return opencodePrefix + name + ".md", fmt.Appendf(nil, `---
# %s: turnback's /%s%s for this conversation's session
description: %q
---
/%s%s%s
`, commandMark, opencodePrefix, name, strings.Replace(commandSummary[name], "/"+name, "/"+opencodePrefix+name, 1), opencodePrefix, name, args)
}

// ocPart is a text part of an OpenCode message.
type ocPart struct {
	Type      string         `json:"type"`
	Text      string         `json:"text"`
	Synthetic bool           `json:"synthetic"`
	Metadata  map[string]any `json:"metadata"`
}

// ocPayload is what the plugin sends: OpenCode's own input and output
// of a hook, or the event.
type ocPayload struct {
	Event string `json:"hook_event_name"`
	Cwd   string `json:"cwd"`
	Input struct {
		SessionID string `json:"sessionID"`
		Command   string `json:"command"`
		Arguments string `json:"arguments"`
	} `json:"input"`
	Output struct {
		Message struct {
			SessionID string `json:"sessionID"`
		} `json:"message"`
		Parts []json.RawMessage `json:"parts"`
	} `json:"output"`
	Ev struct {
		Type       string `json:"type"`
		Properties struct {
			SessionID string `json:"sessionID"`
		} `json:"properties"`
	} `json:"event"`
}

// parseOpenCode normalises the plugin's payload. chat.message snaps with
// the message's first text part you wrote (not one OpenCode added,
// synthetic), unless the message is a turnback command's report (a part
// marked "turnback") or has only text OpenCode added. session.idle
// ends. command.execute.before of tb-undo, tb-redo or tb-turns runs the
// command, its prompt being "/undo ARGS" (OwnCommand's form).
func parseOpenCode(data []byte) (Event, error) {
	if _, err := readPayload(data); err != nil { // not a JSON object
		return Event{}, err
	}
	var p ocPayload
	if err := json.Unmarshal(data, &p); err != nil {
		return Event{}, &PayloadError{Err: err}
	}
	ev := Event{Name: p.Event, Cwd: p.Cwd, Session: p.Input.SessionID}
	switch p.Event {
	case "chat.message":
		if ev.Session == "" {
			ev.Session = p.Output.Message.SessionID
		}
		ev.Action = Snap
		ours, theirs := false, false
		for _, raw := range p.Output.Parts {
			var part ocPart
			if json.Unmarshal(raw, &part) != nil || part.Type != "text" {
				continue
			}
			switch {
			case part.Metadata["turnback"] != nil:
				ev.Action = None
			case part.Synthetic:
				theirs = true
			case !ours:
				ours, ev.Prompt = true, part.Text
			}
		}
		if theirs && !ours {
			ev.Action = None
		}
	case "session.idle":
		ev.Session, ev.Action = p.Ev.Properties.SessionID, End
	case "command.execute.before":
		name, ok := strings.CutPrefix(p.Input.Command, opencodePrefix)
		for _, c := range Commands {
			if ok && name == c {
				ev.Action, ev.Prompt = Run, strings.TrimSpace("/"+name+" "+p.Input.Arguments)
			}
		}
	}
	return ev, nil
}

// opencodeRunText is what the model and the user see of /tb-name: its
// output, the outcome and the next step in OpenCode's commands, and what
// the model is to do with it.
func opencodeRunText(name string, args []string, code int, output string) string {
	cmd := "/" + opencodePrefix + name
	line := strings.Join(append([]string{cmd}, args...), " ")
	var next string
	switch {
	case name == "turns" && code == 0:
		return fmt.Sprintf("turnback's turns of this conversation (%s):\n%s\n\nShow this list to the user as it is; do not change any files for it.", line, output)
	case code == 0 && strings.HasPrefix(output, "nothing to"):
		next = "Nothing changed."
	case code == 0 && name == "undo":
		next = "Done. /" + opencodePrefix + "redo puts the files back as they were before it."
	case code == 0 && name == "redo":
		next = "Done. /" + opencodePrefix + "undo takes it back again."
	case code == 3:
		next = "Nothing was changed: the user edited these files after the turn. " + line + " --force reverts them anyway (the user's edits stay recoverable in a checkpoint)"
		if name == "undo" {
			next += "; " + line + " --merge keeps the user's edits in text files and reverts only the turn's lines"
		}
		next += "."
	case code == 5:
		next = "Done, but incomplete: the paths listed above could not be restored."
	case code == 4:
		next = "Nothing was changed: another turnback command held the store. Run " + cmd + " again in a moment."
	default:
		next = "turnback failed (exit code " + fmt.Sprint(code) + "); the message above says why."
	}
	return fmt.Sprintf("turnback %s (%s), exit code %d:\n%s\n\n%s\nThe user ran %s: this is turnback's report, not your work. Tell the user in a sentence or two what happened and the next step, if any; do not change any files for it.",
		strings.Join(CommandArgs(name, args), " "), line, code, output, next, cmd)
}
