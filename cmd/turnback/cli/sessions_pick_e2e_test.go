package cli

// End-to-end tests of the session status, diff, show and restore work on
// when none is named: as undo, redo, log and end, the session of the
// folder's newest turn when "default" has none, said on stderr; a
// command that changes files refuses (exit 2, nothing changed) when
// another session has a turn open right now, reading ones go on. diff
// given ids names both states and picks no session.

import (
	"regexp"
	"strings"
	"testing"
)

func TestSessionsPickedByEveryCommand(t *testing.T) {
	t.Parallel()
	e := newHookEnv(t)
	e.write("README.md", "# my project\n")
	before := e.tree()
	e.ssClaudeTurn("claude_user_prompt_submit.json", "10:14:02", "10:15:30", func() {
		e.write("src/login.html", "<form></form>\n")
	})
	after := e.tree()
	e.write("notes.txt", "mine\n")
	edited := e.tree()
	var doc struct {
		Turns []struct{ Before, After string } `json:"turns"`
	}
	e.okJSON(&doc, "--session", "3f1c", "log")
	if len(doc.Turns) != 1 {
		t.Fatalf("log: %+v", doc)
	}
	b, a := doc.Turns[0].Before, doc.Turns[0].After
	const note = "using session 3f1c9a52 (claude, last turn 2 min ago)\n"

	e.at("10:17:45")
	// status and diff: since Claude's turn ended, only notes.txt (the
	// default session, with no snapshot, would list every path).
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"status"}, "A notes.txt\n"},
		{[]string{"diff"}, "diff --turnback a/notes.txt b/notes.txt\nnew file mode 100644\n--- /dev/null\n+++ b/notes.txt\n@@ -0,0 +1 @@\n+mine\n"},
	} {
		if r := e.ok(c.args...); r.stderr != note || r.stdout != c.want {
			t.Errorf("%v:\n%s\nwant the note on stderr and stdout\n%s", c.args, r, c.want)
		}
	}
	var st struct {
		Session string `json:"session"`
	}
	if r := e.okJSON(&st, "status"); r.stderr != note || st.Session != ssClaude {
		t.Errorf("status --json: %+v\n%s", st, r)
	}
	// show lists Claude's turn that ends at its after-state.
	r := e.ok("show", a)
	if r.stderr != note || !regexp.MustCompile(`(?m)^after turn 1: Add a login form to the start page$`).MatchString(r.stdout) {
		t.Errorf("show %s:\n%s\nwant the note and Claude's turn 1", a, r)
	}
	// diff with ids picks no session: no note.
	if r := e.ok("diff", b, a); r.stderr != "" || !strings.Contains(r.stdout, "+++ b/src/login.html\n") {
		t.Errorf("diff %s %s:\n%s", b, a, r)
	}
	e.same("after status, diff and show", edited)
	// restore: the note, the folder as before the turn, Claude's turn
	// still there (restore changes no session's turns).
	if r := e.ok("restore", b); r.stderr != note || !strings.HasPrefix(r.stdout, "restored: 0 restored, 3 deleted, 0 brought back\n") {
		t.Errorf("restore %s:\n%s", b, r)
	}
	e.same("after restore", before)
	var turns hookLogDoc
	if e.okJSON(&turns, "--session", "3f1c", "log"); len(turns.Turns) != 1 || turns.Turns[0].Undone {
		t.Errorf("Claude's turns after restore: %+v", turns)
	}

	// Gemini CLI starts a turn and works on; meanwhile Claude's second
	// turn ends. Claude's is the newest turn and Gemini's is open right
	// now: the reading commands go on with Claude's session, restore
	// refuses and changes nothing.
	e.at("10:18:00")
	e.hook("gemini", hookPayload(t, "gemini_before_agent.json", e.dir), 0)
	e.write("src/test.js", "test()\n")
	e.ssClaudeTurn("claude_user_prompt_submit_2.json", "10:18:30", "10:19:00", func() { e.write("src/style.css", "body {}\n") })
	busy := e.tree()
	e.at("10:20:00")
	for _, args := range [][]string{{"status"}, {"diff"}, {"show", a}, {"log"}} {
		if r := e.ok(args...); r.stderr != "using session 3f1c9a52 (claude, last turn 1 min ago)\n" {
			t.Errorf("%v with Gemini's turn open:\n%s\nwant the note of Claude's session", args, r)
		}
	}
	wantErr := "turnback: " + ssClaude + " (claude, last turn 1 min ago) has the folder's newest turn, but " +
		ssGemini + " (gemini, last turn 2 min ago) has a turn open right now (an agent may be working); " +
		"name one with --session (a unique prefix is enough)\nRun 'turnback --help' for usage.\n"
	for _, args := range [][]string{{"restore", a}, {"undo"}} {
		if r := e.expect(2, args...); r.stdout != "" || r.stderr != wantErr {
			t.Errorf("%v with Gemini's turn open:\n%s\nwant stderr\n%s", args, r, wantErr)
		}
	}
	e.same("after the refused commands", busy)
	if r := e.ok("diff", b, a); r.stderr != "" {
		t.Errorf("diff with ids and two live sessions:\n%s", r)
	}
	if r := e.ok("--session", "3f1c", "restore", a); r.stderr != "" {
		t.Errorf("restore --session 3f1c:\n%s", r)
	}
	e.same("after restore --session", after)
}
