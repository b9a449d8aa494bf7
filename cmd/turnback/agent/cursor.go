package agent

// cursor is Cursor's agent: beforeSubmitPrompt starts a turn, stop ends
// it. Hooks live in .cursor/hooks.json (user-level: ~/.cursor/hooks.json),
// a "version" and a list of {command, timeout} per event, the timeout in
// seconds. The payload names the conversation (conversation_id, the
// session) and the workspace folders (workspace_roots, the first is the
// folder); it has no cwd. Cursor reads every hook's stdout as JSON, and
// "{}" lets the prompt through: the hook prints "{}". A prompt that is
// /undo or /redo (with a count or not) is carried out by the hook, as
// "turnback --session S undo [N]" (Run), and blocked: Cursor shows the
// command's output to the user, and the model never sees the prompt.
var cursor = &Agent{
	Name:       "cursor",
	Title:      "Cursor",
	ProjectEnv: []string{"CURSOR_PROJECT_DIR"},
	JSONOut:    true,
	Settings:   ".cursor/hooks.json",
	Events:     []string{"beforeSubmitPrompt", "stop"},
	version:    1,
	element: func(_, command string) any {
		return struct {
			Command string `json:"command"`
			Timeout int    `json:"timeout"`
		}{command, 30}
	},
	parse: func(data []byte) (Event, error) {
		ev, err := parseCommon([]string{"beforeSubmitPrompt"}, []string{"stop"})(data)
		if _, ok := RunCommand(ev.Prompt); ok && ev.Action == Snap {
			ev.Action = Run
		}
		return ev, err
	},
	blocked: func(out string) any {
		return struct {
			Continue    bool   `json:"continue"`
			UserMessage string `json:"user_message"`
		}{false, out}
	},
}
