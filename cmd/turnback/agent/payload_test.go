package agent

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestPayloads: every recorded payload in testdata/<agent>/<event>.json
// normalises to the action turnback takes for that event, with the
// session, folder and (for a snap) prompt it carries.
func TestPayloads(t *testing.T) {
	want := map[string]Action{
		"claude/UserPromptSubmit": Snap, "claude/Stop": End, "claude/SessionEnd": End, "claude/PreToolUse": None,
		"gemini/BeforeAgent": Snap, "gemini/AfterAgent": End, "gemini/SessionEnd": End, "gemini/BeforeTool": None,
	}
	seen := 0
	for _, a := range All() {
		files, _ := filepath.Glob(filepath.Join("testdata", a.Name, "*.json"))
		if len(files) == 0 {
			t.Errorf("%s: no recorded payloads in testdata/%s", a.Name, a.Name)
		}
		for _, f := range files {
			event := a.Name + "/" + filepath.Base(f[:len(f)-len(".json")])
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			ev, err := a.Parse(data)
			if err != nil {
				t.Errorf("%s: %v", event, err)
				continue
			}
			action, ok := want[event]
			if !ok {
				t.Errorf("%s: recorded, but the test does not say its action", event)
				continue
			}
			seen++
			if ev.Action != action || ev.Session == "" || ev.Cwd != "/src/app" || ev.Name != filepath.Base(event) {
				t.Errorf("%s: %+v; want action %v, a session, cwd /src/app", event, ev, action)
			}
			if action == Snap && ev.Prompt != "fix the login bug\nand add a test" {
				t.Errorf("%s: prompt %q", event, ev.Prompt)
			}
		}
	}
	if seen != len(want) {
		t.Errorf("%d payloads checked; want %d", seen, len(want))
	}
	for _, a := range All() {
		var bad *PayloadError
		if _, err := a.Parse([]byte("not json")); !errors.As(err, &bad) {
			t.Errorf("%s: Parse(not json) = %v; want a *PayloadError", a.Name, err)
		}
	}
}
