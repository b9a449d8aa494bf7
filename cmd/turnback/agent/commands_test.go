package agent

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/turnback/turnback"
)

// TestOwnCommand: /undo, /redo and /turns, with or without arguments,
// are turnback's; anything else is a prompt.
func TestOwnCommand(t *testing.T) {
	for prompt, want := range map[string][]string{
		"/undo": {"undo"}, "  /undo 2 ": {"undo", "2"}, "/redo\n": {"redo"}, "/turns": {"turns"},
		"/undo 3\nand more": {"undo", "3"}, "/undo\tx y": {"undo", "x", "y"},
		"/undone": nil, "undo": nil, "please /undo": nil, "": nil, "/Undo": nil, "/log": nil,
	} {
		name, args, ok := OwnCommand(prompt)
		var got []string
		if ok {
			got = append([]string{name}, args...)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("OwnCommand(%q) = %q, want %q", prompt, got, want)
		}
	}
}

// TestPlanOwnCommand: a prompt that is one of turnback's commands never
// snaps; Gemini CLI's hook carries it out (Run) for its session.
func TestPlanOwnCommand(t *testing.T) {
	dir := t.TempDir()
	env := Env{Getenv: func(string) string { return "" }, Getwd: func() (string, error) { return dir, nil }, Store: filepath.Join(t.TempDir(), "s")}
	payload := func(event, prompt string) []byte {
		data, _ := json.Marshal(map[string]string{"session_id": "s1", "cwd": dir, "hook_event_name": event, "prompt": prompt})
		return data
	}
	p, err := claude.Plan(payload("UserPromptSubmit", "/undo 2"), env)
	if err != nil || p.Event.Action != None {
		t.Errorf("claude /undo 2: %+v, %v; want no action (the command file runs it)", p, err)
	}
	p, err = gemini.Plan(payload("BeforeAgent", "/undo 2"), env)
	want := []string{"-C", dir, "--store", env.Store, "--session", "s1", "undo", "2"}
	if err != nil || p.Event.Action != Run || !reflect.DeepEqual(p.Args, want) {
		t.Errorf("gemini /undo 2: %+v, %v; want Run of %q", p, err, want)
	}
	p, err = gemini.Plan(payload("BeforeAgent", "/turns"), env)
	if err != nil || p.Event.Action != Run || p.Args[len(p.Args)-1] != "log" {
		t.Errorf("gemini /turns: %+v, %v; want Run of log", p, err)
	}
	// Without a session id, the hook refuses rather than undo the default
	// session's turns.
	noSession, _ := json.Marshal(map[string]string{"cwd": dir, "hook_event_name": "BeforeAgent", "prompt": "/undo"})
	if _, err := gemini.Plan(noSession, env); err == nil || !strings.Contains(err.Error(), "names no session") {
		t.Errorf("gemini /undo without a session id: %v; want an error", err)
	}
	// A prompt snaps and takes the notice.
	p, err = claude.Plan(payload("UserPromptSubmit", "fix it"), env)
	if err != nil || p.Event.Action != Snap || !strings.Contains(strings.Join(p.Args, " "), "--json snap --take-notice --message=fix it") {
		t.Errorf("claude prompt: %+v, %v", p, err)
	}
}

// TestNoticeText: the text names each undo and redo with its turns and
// at most 20 paths in all, then a count; names are quoted.
func TestNoticeText(t *testing.T) {
	if NoticeText(nil) != "" || NoticeText(&turnback.Notice{}) != "" {
		t.Error("an empty notice has text")
	}
	var many []string
	for i := range 18 {
		many = append(many, fmt.Sprintf("f%02d", i))
	}
	n := &turnback.Notice{Entries: []turnback.NoticeEntry{
		{Op: "undo", Turns: []int{3, 4}, Paths: []string{"a.txt", "evil\n.txt"}},
		{Op: "redo", Turns: []int{3}, Paths: many, More: 5},
		{Op: "redo", Turns: []int{4}, Paths: []string{"x"}},
		{Op: "undo", Turns: []int{5}},
	}}
	want := "turnback: since the last prompt the user reverted file changes with turnback:\n" +
		"- undid turns 3, 4: a.txt, \"evil\\n.txt\"\n" +
		"- redid turn 3: " + strings.Join(many, ", ") + " and 5 more paths\n" +
		"- redid turn 4: 1 more path\n" +
		"- undid turn 5: no path changed\n" +
		"These files may no longer hold what you wrote or read: read them again before relying on them."
	if got := NoticeText(n); got != want {
		t.Errorf("NoticeText:\n%s\nwant:\n%s", got, want)
	}
	out := Output("UserPromptSubmit", "a <b> & c")
	if string(out) != `{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"a <b> & c"}}`+"\n" {
		t.Errorf("Output: %s", out)
	}
	if got := claude.Tell(Event{Name: "UserPromptSubmit"}, n, func(k string) string {
		if k == "TURNBACK_TELL_MODEL" {
			return "0"
		}
		return ""
	}); got != nil {
		t.Errorf("TURNBACK_TELL_MODEL=0: %s", got)
	}
}

// TestInstallCommands: init's command files; a file of the same name
// that is not turnback's is left byte for byte.
func TestInstallCommands(t *testing.T) {
	dir := t.TempDir()
	mine := filepath.Join(dir, ".claude", "commands", "redo.md")
	if err := os.MkdirAll(filepath.Dir(mine), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(mine, []byte("my own redo\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	res, err := claude.InstallCommands(dir, "/opt/bin/turnback hook claude")
	if err != nil || len(res.Written) != 2 || !reflect.DeepEqual(res.Skipped, []string{mine}) {
		t.Fatalf("InstallCommands: %+v, %v", res, err)
	}
	if data, _ := os.ReadFile(mine); string(data) != "my own redo\n" {
		t.Errorf("the user's redo.md changed: %q", data)
	}
	data, err := os.ReadFile(filepath.Join(dir, ".claude", "commands", "undo.md"))
	if err != nil || !strings.Contains(string(data), "\n!`/opt/bin/turnback --agent claude --session \"${CLAUDE_SESSION_ID}\" undo $ARGUMENTS`\n") ||
		!strings.Contains(string(data), "allowed-tools: \"Bash(/opt/bin/turnback:*)\"\n") {
		t.Errorf("undo.md:\n%s (%v)", data, err)
	}
	again, err := claude.InstallCommands(dir, "/opt/bin/turnback hook claude")
	if err != nil || len(again.Written)+len(again.Updated) != 0 || len(again.Skipped) != 1 {
		t.Errorf("second InstallCommands: %+v, %v; want nothing written", again, err)
	}
	// An earlier init's file (another binary, older wording) is brought
	// up to date; the user's stays.
	moved, err := claude.InstallCommands(dir, "turnback hook claude")
	if err != nil || len(moved.Written) != 0 || len(moved.Updated) != 2 || len(moved.Skipped) != 1 {
		t.Errorf("InstallCommands for another binary: %+v, %v; want undo.md and turns.md updated", moved, err)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, ".claude", "commands", "undo.md")); !strings.Contains(string(data), "\n!`turnback --agent claude ") {
		t.Errorf("updated undo.md:\n%s", data)
	}
	res, err = gemini.InstallCommands(dir, "turnback hook gemini")
	if err != nil || len(res.Written) != 3 {
		t.Fatalf("gemini: %+v, %v", res, err)
	}
	data, _ = os.ReadFile(filepath.Join(dir, ".gemini", "commands", "undo.toml"))
	if !strings.Contains(string(data), "\nprompt = \"/undo {{args}}\"\n") {
		t.Errorf("undo.toml:\n%s", data)
	}
}
