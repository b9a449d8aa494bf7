// Package agent knows the coding agents turnback hooks into: what each
// sends its hooks, where its settings keep them, and how a hook finds the
// folder and session of an event. The reasons are in docs/design.md;
// what users see is in docs/agents.md.
//
// # Terms
//
//   - Agent: one coding agent, described in its own file (claude.go,
//     gemini.go, codex.go, copilot.go, cursor.go, qwen.go, opencode.go).
//     agent.go lists them in the order help shows.
//   - Hook: a command line in the agent's settings, run on the agent's
//     events with a JSON payload on stdin.
//   - Event: a payload normalised by Parse. It has the event's name, an
//     Action, the session id, the directory and the prompt.
//   - Action: Snap when a turn starts, End when it ends, None otherwise.
//     Run is a prompt that is turnback's own command, which the hook
//     carries out.
//   - Own command: /undo, /redo or /turns (/tb-undo ... in OpenCode
//     and Copilot). It never starts a turn. Copilot's are skills whose
//     text has the model run turnback (copilot_skill.go).
//   - RunsCommands: the agent's prompt hook carries out own commands
//     (Gemini CLI, Codex CLI, Qwen Code, Cursor).
//   - Report: what an own command prints inside an agent, whatever its
//     outcome (report.go), with the next steps as the agent's commands.
//   - Context: the agent takes text from the hook for the model. Tell
//     prints the notice of undo and redo there.
//   - Settings file: the agent's JSON or JSONC file. Init edits it in
//     place; Remove takes turnback's entries out.
//   - Plugin file: for an agent that runs no hook commands (OpenCode),
//     a file init writes whole (plugin.go) in place of a settings file;
//     the plugin runs the hook.
//
// # Invariants
//
//   - Init changes only turnback's entries. Every other byte of the file
//     stays as written. Init then Init with Remove gives the file back.
//   - A hook is never added twice.
//   - Command files (and Copilot skills) not marked as turnback's are
//     never overwritten or deleted.
//   - A settings file Init cannot read is left untouched. The error says
//     why and what to merge by hand.
//   - A hook never blocks the agent. It exits 1, never 2, and writes
//     failures to hook.log in the store. A folder turnback refuses gets
//     no store folder: its failures go to the store root's hook.log.
//   - Nothing but the notice, and the report of an own command the
//     user typed, reaches the model; the notice not when
//     TURNBACK_TELL_MODEL=0.
//
// # Adding an agent
//
// Write its file with its Agent value and payload parser. Every parser
// goes through the one normaliser in payload.go. Record its payloads in
// the command's testdata/hooks/<name>_<case>.json, and say in
// TestPayloads what each must become.
package agent
