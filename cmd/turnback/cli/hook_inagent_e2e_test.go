package cli

// End-to-end tests of undo from inside the agent: the slash commands init
// installs, the prompt hook that does not snap for them, the notice that
// tells the model what undo and redo changed, and the redo rule seen
// through hook payloads, driving the built binary.

import (
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"strings"
	"testing"
)

// iaClaudeCommandLine reads the shell command of the "!`...`" line in
// the command file init wrote for /name, with ${CLAUDE_SESSION_ID} and
// $ARGUMENTS replaced as Claude Code replaces them.
func iaClaudeCommandLine(t *testing.T, e *cliEnv, name, sid, args string) string {
	t.Helper()
	data, err := os.ReadFile(e.path(".claude/commands/" + name + ".md"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?m)^!`([^`]+)`$").FindSubmatch(data)
	if m == nil {
		t.Fatalf("%s.md has no !`command` line:\n%s", name, data)
	}
	line := strings.ReplaceAll(string(m[1]), "${CLAUDE_SESSION_ID}", sid)
	return strings.ReplaceAll(line, "$ARGUMENTS", args)
}

// iaShell runs line through sh in the project folder, with the
// environment Claude Code gives its commands.
func iaShell(t *testing.T, e *cliEnv, line string) cliResult {
	t.Helper()
	cmd := exec.Command("sh", "-c", line)
	cmd.Dir, cmd.Env = e.dir, append(e.environ(), "CLAUDE_PROJECT_DIR="+e.dir, "CLAUDECODE=1")
	return cliWait(t, cmd, nil, []string{"sh", "-c", line})
}

// iaClaudeTurn records one turn through the hooks: the prompt, the
// agent's edits, Stop.
func iaClaudeTurn(t *testing.T, e *cliEnv, prompt string, edit func()) {
	t.Helper()
	e.hook("claude", hookPayload(t, prompt, e.dir), 0)
	edit()
	e.hook("claude", hookPayload(t, "claude_stop.json", e.dir), 0)
}

// TestHookSlashUndoTellsModel: /undo through the exact command line init
// wrote undoes the conversation's turn; the prompt /undo itself makes no
// turn; the next prompt's hook prints, once, the JSON that tells the
// model which paths the undo reverted; the prompt after prints nothing.
func TestHookSlashUndoTellsModel(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("runs the command line through sh")
	}
	t.Parallel()
	for _, tell := range []bool{true, false} {
		t.Run(map[bool]string{true: "told", false: "TURNBACK_TELL_MODEL=0"}[tell], func(t *testing.T) {
			t.Parallel()
			e := newHookEnv(t)
			if !tell {
				e.extra = append(e.extra, "TURNBACK_TELL_MODEL=0")
			}
			e.write("README.md", "# my project\n")
			e.ok("init", "--claude")
			sid := payloadSession(t, hookPayload(t, "claude_user_prompt_submit.json", e.dir))
			before := e.tree()
			iaClaudeTurn(t, e, "claude_user_prompt_submit.json", func() {
				e.write("README.md", "# my project\n\nNow with a login form.\n")
				e.write("src/login.html", "<form></form>\n")
			})
			// The user types /undo: Claude Code runs the hook with the
			// prompt as typed, then the command file's line.
			e.hook("claude", hookPayload(t, "claude_user_prompt_undo.json", e.dir), 0)
			if doc := e.log(sid); len(doc.Turns) != 1 || doc.Turns[0].Open {
				t.Fatalf("the prompt /undo made a turn: %+v", doc)
			}
			undoLine := iaClaudeCommandLine(t, e, "undo", sid, "")
			t.Logf("/undo runs: %s", undoLine)
			r := iaShell(t, e, undoLine)
			want := "undid 1 turn: 1 restored, 2 deleted, 0 brought back\n  M README.md\n  D src\n  D src/login.html\n"
			if r.code != 0 || !strings.HasPrefix(r.stdout, want) {
				t.Fatalf("/undo: want exit 0 and stdout starting %q\n%s", want, r)
			}
			e.same("after /undo", before)
			e.hook("claude", hookPayload(t, "claude_stop.json", e.dir), 0) // the /undo turn of the model ends

			// The next prompt tells the model, once.
			r = e.exec("", hookPayload(t, "claude_user_prompt_submit_2.json", e.dir), "hook", "claude")
			told := `{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"turnback: since the last prompt the user reverted file changes with turnback:\n- undid turn 1: README.md, src/login.html\nThese files may no longer hold what you wrote or read: read them again before relying on them."}}` + "\n"
			if !tell {
				told = ""
			}
			if r.code != 0 || r.stdout != told {
				t.Fatalf("prompt after /undo: stdout\n%s\nwant\n%s\n%s", r.stdout, told, r)
			}
			// The prompt after that prints nothing (hook checks stdout "").
			e.hook("claude", hookPayload(t, "claude_stop.json", e.dir), 0)
			e.hook("claude", hookPayload(t, "claude_user_prompt_submit.json", e.dir), 0)
			e.hook("claude", hookPayload(t, "claude_stop.json", e.dir), 0)
			// Two prompts that changed nothing keep the redo (the redo
			// rule): /redo brings the turn back, /turns lists it.
			r = iaShell(t, e, iaClaudeCommandLine(t, e, "redo", sid, "1"))
			want = "redid 1 turn: 1 restored, 0 deleted, 2 brought back\n  M README.md\n  A src\n  A src/login.html\n"
			if r.code != 0 || !strings.HasPrefix(r.stdout, want) {
				t.Fatalf("/redo 1: want exit 0 and stdout starting %q\n%s", want, r)
			}
			if r := iaShell(t, e, iaClaudeCommandLine(t, e, "turns", sid, "")); r.code != 0 || !strings.Contains(r.stdout, "Add a login form") || strings.Contains(r.stdout, "undone") {
				t.Errorf("/turns after /redo: %s", r)
			}
			r = e.exec("", hookPayload(t, "claude_user_prompt_question.json", e.dir), "hook", "claude")
			if tell {
				told = strings.Replace(told, "- undid turn 1:", "- redid turn 1:", 1)
			}
			if r.code != 0 || r.stdout != told {
				t.Fatalf("prompt after /redo: stdout\n%s\nwant\n%s\n%s", r.stdout, told, r)
			}
		})
	}
}

// TestHookRedoRule: through hook payloads, the redo survives a prompt
// whose turn changes nothing, and a prompt whose turn changes a file
// leaves nothing to redo.
func TestHookRedoRule(t *testing.T) {
	t.Parallel()
	e := newHookEnv(t)
	e.extra = append(e.extra, "TURNBACK_TELL_MODEL=0") // the hooks print nothing (TestHookSlashUndoTellsModel checks the notice)
	e.write("README.md", "# my project\n")
	sid := payloadSession(t, hookPayload(t, "claude_user_prompt_submit.json", e.dir))
	iaClaudeTurn(t, e, "claude_user_prompt_submit.json", func() { e.write("login.html", "<form></form>\n") })
	after := e.tree()
	e.ok("--session", sid, "undo")
	iaClaudeTurn(t, e, "claude_user_prompt_question.json", func() {}) // a question
	if r := e.ok("--session", sid, "redo"); !strings.HasPrefix(r.stdout, "redid 1 turn:") {
		t.Fatalf("redo after a prompt that changed nothing:\n%s", r)
	}
	e.same("after redo", after)
	e.ok("--session", sid, "undo")
	iaClaudeTurn(t, e, "claude_user_prompt_submit_2.json", func() { e.write("README.md", "# my project, renamed\n") })
	changed := e.tree()
	if r := e.ok("--session", sid, "redo"); !strings.HasPrefix(r.stdout, "nothing to redo: turn ") {
		t.Fatalf("redo after a prompt whose turn changed a file: stdout %q, want nothing to redo, naming the turn", r.stdout)
	}
	e.same("after the refused redo", changed)
}

// TestHookGeminiSlashUndo: Gemini CLI expands the /undo command init
// wrote into the prompt "/undo "; its BeforeAgent hook carries it out for
// the conversation's session and gives the model the result, and no
// turn is made for it.
func TestHookGeminiSlashUndo(t *testing.T) {
	t.Parallel()
	e := newHookEnv(t)
	e.write("README.md", "# my project\n")
	e.ok("init", "--gemini")
	toml, err := os.ReadFile(e.path(".gemini/commands/undo.toml"))
	if err != nil || !strings.Contains(string(toml), "\nprompt = \"/undo {{args}}\"\n") {
		t.Fatalf("undo.toml: %v\n%s", err, toml)
	}
	sid := payloadSession(t, hookPayload(t, "gemini_before_agent.json", e.dir))
	before := e.tree()
	e.hook("gemini", hookPayload(t, "gemini_before_agent.json", e.dir), 0)
	e.write("login.html", "<form></form>\n")
	e.hook("gemini", hookPayload(t, "gemini_after_agent.json", e.dir), 0)

	r := e.exec("", hookPayload(t, "gemini_before_agent_undo.json", e.dir), "hook", "gemini")
	event, text := modelContext(t, r.stdout)
	if r.code != 0 || event != "BeforeAgent" ||
		!strings.HasPrefix(text, "turnback carried out /undo (the user's command, not yours); its report:\nundid 1 turn: 0 restored, 1 deleted, 0 brought back\n  D login.html\n") {
		t.Fatalf("/undo through BeforeAgent:\n%s", r)
	}
	e.same("after /undo", before)
	e.hook("gemini", hookPayload(t, "gemini_after_agent.json", e.dir), 0)
	if doc := e.log(sid); len(doc.Turns) != 1 || !doc.Turns[0].Undone {
		t.Fatalf("want the one turn, undone, and none for /undo: %+v", doc)
	}
}

// TestInitKeepsUserCommands: init does not overwrite a command file of
// the same name that is the user's; it says so and writes the others.
func TestInitKeepsUserCommands(t *testing.T) {
	t.Parallel()
	e := newHookEnv(t)
	e.write(".claude/commands/undo.md", "my own undo\n")
	r := e.ok("init", "--claude")
	want := "left " + e.path(".claude/commands/undo.md") + " as it is (not turnback's): /undo runs it, not turnback\n"
	if !strings.Contains(r.stdout, want) || !strings.Contains(r.stdout, "added the turnback command /redo: ") {
		t.Errorf("init:\n%s\nwant a line %q", r, want)
	}
	if got := string(e.read(".claude/commands/undo.md")); got != "my own undo\n" {
		t.Errorf("the user's undo.md is now %q", got)
	}
	redo := e.read(".claude/commands/redo.md")
	r = e.ok("init", "--claude")
	if strings.Contains(r.stdout, "added the turnback command") || string(e.read(".claude/commands/redo.md")) != string(redo) {
		t.Errorf("second init wrote commands again:\n%s", r)
	}
}
