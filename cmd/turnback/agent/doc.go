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
// None for the events it does not use; Run for a prompt that is a
// turnback command the hook carries out and blocks, Cursor's /undo and
// /redo, see run.go), the session id, the directory
// the agent runs in and, for a snap, the prompt. The hook command
// consumes only Events, so it does not change when an agent is added.
//
// # Adding an agent
//
// One file per agent (claude.go, gemini.go, codex.go, copilot.go,
// cursor.go, qwen.go) holds its Agent: its name on the command line,
// its project-directory variables, whether it reads the hook's stdout
// as JSON, its settings file (and user-level one, for init --global),
// the events init installs the hook for, the hook entry as its settings
// spell it, and its payload parser. Every parser goes through the one
// normaliser (payload.go): the event's name (hook_event_name,
// hookEventName), the session id (session_id, sessionId,
// conversation_id, taskId), the folder (cwd, else the first of
// workspace_roots, workspaceRoots) and the prompt; parseCommon maps the
// named events to actions, and an agent with its own rules (Copilot
// CLI's events that do not name themselves, Qwen Code's prompt event
// fired without a prompt mid-turn) wraps it. Its recorded payloads go
// in the command's testdata/hooks/<name>_<case>.json (the end-to-end
// hook tests replay them), and TestPayloads says what each must
// become. The list in agent.go names every agent in the order help and
// errors show them.
//
// # Settings files
//
// Init (init.go) edits the agent's settings file in place (settings.go):
// the file is parsed with the byte span of every value (jsonc.go, which
// accepts // and /* */ comments, as Gemini CLI and VS Code do, and
// refuses trailing commas, as JSON.parse does), and turnback's entries
// are inserted as text after the last item of the list, object or file
// they belong to, indented as the file is, so every other byte (keys,
// order, comments, spacing) stays as written. A hook already there
// (this command, or another turnback's "hook <agent>") is not added
// twice. Removal cuts exactly the entries whose every command is
// turnback's, with the separators insertion added, the lists and the
// "hooks" it leaves empty, and deletes a file (and the folders) left as
// init would have started it: init then init --remove gives the file
// back byte for byte (FuzzInitRoundTrip), except for an empty list or
// "hooks" that was there before, which goes too. Files are written
// through a temporary file and a rename, keeping their mode. The hook
// command is "turnback hook NAME" when turnback is on PATH, else this
// executable's absolute path (not go run's temporary one: refused).
//
// # Failure behaviour
//
// A hook must never get in the agent's way: the hook command reports a
// failure on stderr and in hook.log in the store (Log), and exits 1,
// never 2 (which would block the prompt). Parse fails only for a
// payload that is not JSON (a *PayloadError); Init refuses, and
// leaves untouched, a settings file it cannot read (not JSON or JSONC,
// a trailing comma, not an object, "hooks" not an object of lists),
// and says why and what to merge into it by hand.
package agent
