// Package agent knows the coding agents turnback hooks into: what each
// sends its hooks, where its project settings keep them, and how a hook
// finds the folder and session of an event.
//
// # Terms
//
// An agent runs a hook (a command line in its settings file) on events
// of its own: a prompt submitted, a turn ended, a session ended, a tool
// about to run. The hook reads the event's payload, JSON, on stdin.
// Parse normalises a payload into an Event: the agent's event name, the
// Action turnback takes (Snap when a turn starts, End when it ends,
// None for the events it does not use), the session id, the directory
// the agent runs in and, for a snap, the prompt. The hook command
// consumes only Events, so it does not change when an agent is added.
//
// # Slash commands and the model
//
// InstallCommands (commands.go) writes /undo, /redo and /turns into the
// agent's command directory, never over a file that is not turnback's
// own. A prompt that is one of them (OwnCommand) starts no turn: Plan
// gives it no action, or, for an agent whose prompt hook sees the
// command only after expanding it (RunsCommands: Gemini CLI), the
// action Run, which the hook carries out for the event's session. A
// prompt hook of an agent that takes text for the model (Context) snaps
// with the session's notice of undo and redo taken (Capture) and prints
// it (Tell, notice.go: NoticeText in Output's JSON), unless
// TURNBACK_TELL_MODEL=0; nothing else it prints reaches the model.
//
// # Adding an agent
//
// One file per agent (claude.go, gemini.go) holds its Agent: its name
// on the command line, its project-directory variables, whether it
// reads the hook's stdout as JSON, its settings file, the events init
// installs the hook for, the hook entry as its settings spell it, and
// its payload parser (parseCommon for the agents whose payload has
// Claude Code's shape). Its recorded payloads go in the command's
// testdata/hooks/<name>_<case>.json (the end-to-end hook tests replay
// them), and TestPayloads says what each must become. The list in
// agent.go names every agent in the order help and errors show them.
//
// # Settings files
//
// Install merges turnback's hook into the agent's settings file, keeping
// every other key and hook as written (object keeps keys in their
// order, values as raw bytes) and writing through a temporary file and
// a rename. A hook already there (this command, or another turnback's
// "hook <agent>") is not added twice.
//
// # Failure behaviour
//
// A hook must never get in the agent's way: the hook command reports a
// failure on stderr and in hook.log in the store (Log), and exits 1,
// never 2 (which would block the prompt). Parse fails only for a
// payload that is not JSON (a *PayloadError); Install refuses, and
// leaves untouched, a settings file that is not a JSON object or whose
// hooks are not as the agent spells them.
package agent
