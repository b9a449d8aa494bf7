package agent

// cursor is Cursor's agent: beforeSubmitPrompt starts a turn, stop ends
// it. Hooks live in .cursor/hooks.json (user-level: ~/.cursor/hooks.json),
// a "version" and a list of {command, timeout} per event, the timeout in
// seconds. The payload names the conversation (conversation_id, the
// session) and the workspace folders (workspace_roots, the first is the
// folder); it has no cwd. Cursor reads every hook's stdout as JSON, and
// "{}" lets the prompt through: the hook prints "{}".
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
	parse: parseCommon([]string{"beforeSubmitPrompt"}, []string{"stop"}),
}
