package agent

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestOpenCodePayloads: every payload of OpenCode's plugin
// (../testdata/hooks/opencode_*.json; opencode_real_* recorded from
// OpenCode 1.18.33 running TestOpenCodeReal*'s turns) normalises to
// the action, session, folder and prompt it stands for, and Plan makes
// of it the command line the hook runs.
func TestOpenCodePayloads(t *testing.T) {
	const sid, cwd = "ses_dde9a1940ffe2z00OtkXEGEOLH", "/home/user/my-project"
	cases := map[string]struct {
		action       Action
		session, cwd string
		prompt       string
		args         []string // Plan's, after -C DIR --session S
	}{
		"opencode_real_chat_message": {Snap, sid, cwd, "Create hello.txt saying hello",
			[]string{"--json", "snap", "--take-notice", "--message=Create hello.txt saying hello"}},
		// A file attached (-f, @file): OpenCode adds synthetic parts first.
		"opencode_real_chat_message_file": {Snap, sid, cwd, `"Summarise this file"`,
			[]string{"--json", "snap", "--take-notice", `--message="Summarise this file"`}},
		// The message that carries /tb-undo's report makes no turn.
		"opencode_real_chat_message_command": {None, sid, cwd, "", nil},
		"opencode_chat_message_synthetic":    {None, sid, cwd, "", nil},
		"opencode_real_session_idle":         {End, sid, cwd, "", []string{"--json", "end"}},
		"opencode_real_command_undo":         {Run, sid, cwd, "/undo", []string{"undo"}},
		"opencode_real_command_redo":         {Run, sid, cwd, "/redo 2", []string{"redo", "2"}},
		"opencode_real_command_turns":        {Run, sid, cwd, "/turns", []string{"log"}},
		"opencode_command_review":            {None, sid, cwd, "", nil},
		"opencode_no_cwd":                    {Snap, sid, "", "Create hello.txt saying hello", nil},
		"opencode_cwd_gone":                  {Snap, sid, "/nonexistent-turnback-hook-test/my-project", "Create hello.txt saying hello", nil},
		"opencode_no_session_id":             {Snap, "", cwd, "Create hello.txt saying hello", nil},
	}
	files, err := filepath.Glob(filepath.Join("..", "testdata", "hooks", "opencode_*.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != len(cases) {
		t.Errorf("%d recorded payloads; the test says what %d become", len(files), len(cases))
	}
	work := t.TempDir()
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".json")
		want, ok := cases[name]
		if !ok {
			t.Errorf("%s: recorded, but the test does not say its action", name)
			continue
		}
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		ev, err := opencode.Parse(data)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if ev.Action != want.action || ev.Session != want.session || ev.Cwd != want.cwd || ev.Prompt != want.prompt && want.action != None {
			t.Errorf("%s: %+v; want %v in session %q, folder %q, prompt %q", name, ev, want.action, want.session, want.cwd, want.prompt)
		}
		if want.args == nil {
			continue
		}
		p, err := opencode.Plan(data, Env{Getenv: func(string) string { return "" }, Dir: work})
		if err != nil {
			t.Errorf("%s: Plan: %v", name, err)
			continue
		}
		wantArgs := append([]string{"-C", work, "--session", sid}, want.args...)
		if !slices.Equal(p.Args, wantArgs) {
			t.Errorf("%s: Plan runs %q; want %q", name, p.Args, wantArgs)
		}
	}
}

// TestOpenCodeRunText: each outcome of /tb-undo, /tb-redo and /tb-turns
// reaches the model and the user with turnback's output, what it means
// and the next step as OpenCode's commands.
func TestOpenCodeRunText(t *testing.T) {
	const ask = "The user ran %s: this is turnback's report, not your work. Tell the user in a sentence or two what happened and the next step, if any; do not change any files for it."
	for _, c := range []struct {
		name   string
		args   []string
		code   int
		output string
		want   string
	}{
		{"undo", nil, 0, "undid 1 turn: 0 restored, 1 deleted, 0 brought back\n  D hello.txt",
			"turnback undo (/tb-undo), exit code 0:\nundid 1 turn: 0 restored, 1 deleted, 0 brought back\n  D hello.txt\n\nDone. /tb-redo puts the files back as they were before it.\n" + strings.Replace(ask, "%s", "/tb-undo", 1)},
		{"undo", []string{"2"}, 3, "turnback: conflict",
			"turnback undo 2 (/tb-undo 2), exit code 3:\nturnback: conflict\n\nNothing was changed: the user edited these files after the turn. /tb-undo 2 --force reverts them anyway (the user's edits stay recoverable in a checkpoint); /tb-undo 2 --merge keeps the user's edits in text files and reverts only the turn's lines.\n" + strings.Replace(ask, "%s", "/tb-undo", 1)},
		{"redo", nil, 3, "turnback: conflict",
			"turnback redo (/tb-redo), exit code 3:\nturnback: conflict\n\nNothing was changed: the user edited these files after the turn. /tb-redo --force reverts them anyway (the user's edits stay recoverable in a checkpoint).\n" + strings.Replace(ask, "%s", "/tb-redo", 1)},
		{"redo", nil, 0, "nothing to redo",
			"turnback redo (/tb-redo), exit code 0:\nnothing to redo\n\nNothing changed.\n" + strings.Replace(ask, "%s", "/tb-redo", 1)},
		{"redo", nil, 0, "redid 1 turn",
			"turnback redo (/tb-redo), exit code 0:\nredid 1 turn\n\nDone. /tb-undo takes it back again.\n" + strings.Replace(ask, "%s", "/tb-redo", 1)},
		{"undo", nil, 5, "undid 1 turn\nnot restorable: big.bin",
			"turnback undo (/tb-undo), exit code 5:\nundid 1 turn\nnot restorable: big.bin\n\nDone, but incomplete: the paths listed above could not be restored.\n" + strings.Replace(ask, "%s", "/tb-undo", 1)},
		{"undo", nil, 4, "turnback: busy",
			"turnback undo (/tb-undo), exit code 4:\nturnback: busy\n\nNothing was changed: another turnback command held the store. Run /tb-undo again in a moment.\n" + strings.Replace(ask, "%s", "/tb-undo", 1)},
		{"undo", []string{"x"}, 2, "turnback: bad N",
			"turnback undo x (/tb-undo x), exit code 2:\nturnback: bad N\n\nturnback failed (exit code 2); the message above says why.\n" + strings.Replace(ask, "%s", "/tb-undo", 1)},
		{"turns", nil, 0, "session s (opencode)",
			"turnback's turns of this conversation (/tb-turns):\nsession s (opencode)\n\nShow this list to the user as it is; do not change any files for it."},
	} {
		if got := opencodeRunText(c.name, c.args, c.code, c.output); got != c.want {
			t.Errorf("%s %q exit %d:\n%s\nwant\n%s", c.name, c.args, c.code, got, c.want)
		}
	}
}

// TestOpenCodePlugin: the plugin runs the hooks' binary, a path quoted
// for sh being given to JavaScript as the path itself.
func TestOpenCodePlugin(t *testing.T) {
	for bin, want := range map[string]string{
		"turnback":                  `const BIN = "turnback"`,
		"/opt/tb/turnback":          `const BIN = "/opt/tb/turnback"`,
		`'/opt/my tools/turnback'`:  `const BIN = "/opt/my tools/turnback"`,
		`'/opt/it'\''s/"turnback"'`: `const BIN = "/opt/it's/\"turnback\""`,
	} {
		got := string(opencodePlugin(bin))
		if !strings.Contains(got, want+"\n") || strings.Count(got, "const BIN") != 1 {
			t.Errorf("plugin for %s lacks %s", bin, want)
		}
		if !strings.HasPrefix(got, "// "+commandMark) {
			t.Errorf("plugin does not start with the mark")
		}
	}
}

// FuzzOpenCodePayload: any input parses without panicking; only a
// JSON object is accepted; a Run is one of turnback's commands, whose
// prompt OwnCommand reads back; only chat.message snaps and only
// session.idle ends.
func FuzzOpenCodePayload(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("..", "testdata", "hooks", "opencode_*.json"))
	for _, file := range files {
		if data, err := os.ReadFile(file); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte(`{"hook_event_name":"command.execute.before","input":{"command":"tb-undo","arguments":"2 --force\n/redo"}}`))
	f.Add([]byte(`{"hook_event_name":"chat.message","output":{"parts":[{"type":"text","text":"a\nb","metadata":{"turnback":null}}]}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		ev, err := opencode.Parse(data)
		if err != nil {
			return
		}
		switch ev.Action {
		case Run:
			name, _, ok := OwnCommand(ev.Prompt)
			if !ok || ev.Name != "command.execute.before" || !strings.Contains(string(data), opencodePrefix+name) {
				t.Fatalf("Run of %q from %q", ev.Prompt, data)
			}
		case Snap:
			if ev.Name != "chat.message" {
				t.Fatalf("Snap %+v from %q", ev, data)
			}
		case End:
			if ev.Name != "session.idle" {
				t.Fatalf("End %+v from %q", ev, data)
			}
		}
	})
}
