package agent

// gemini is Gemini CLI: BeforeAgent starts a turn, AfterAgent and
// SessionEnd end it. Hooks live in .gemini/settings.json, named, with
// their timeout in milliseconds; Gemini CLI parses the hook's stdout as
// JSON, so the hook prints "{}". It sets GEMINI_PROJECT_DIR, and
// CLAUDE_PROJECT_DIR for hooks written for Claude Code.
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
	parse: parseCommon([]string{"BeforeAgent"}, []string{"AfterAgent", "SessionEnd"}),
}
