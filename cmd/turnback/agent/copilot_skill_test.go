package agent

import (
	"encoding/json"
	"path/filepath"
	"testing"
)

// TestPlanCopilotSkillCommand: a Copilot prompt that is one of
// turnback's skills (/tb-undo) is never a turn, and the hook does not
// carry it out (the skill has the model run turnback). OpenCode's
// prefixed commands are left to its own rules.
func TestPlanCopilotSkillCommand(t *testing.T) {
	dir := t.TempDir()
	env := Env{Getenv: func(string) string { return "" }, Getwd: func() (string, error) { return dir, nil }, Store: filepath.Join(t.TempDir(), "s")}
	for _, c := range []struct {
		prompt string
		want   Action
	}{
		{"/tb-undo", None},
		{"  /tb-undo 2 --force", None},
		{"/tb-redo", None},
		{"/tb-turns", None},
		{"/undo", None},
		{"/tb-undone", Snap},
		{"Explain /tb-undo", Snap},
	} {
		data, _ := json.Marshal(map[string]string{"sessionId": "s1", "cwd": dir, "prompt": c.prompt})
		p, err := copilot.Plan(data, env)
		if err != nil || p.Event.Action != c.want {
			t.Errorf("copilot %q: action %v, %v; want %v", c.prompt, p.Event.Action, err, c.want)
		}
	}
}
