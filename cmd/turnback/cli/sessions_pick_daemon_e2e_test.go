package cli

import (
	"encoding/json"
	"testing"

	"github.com/turnback/turnback/internal/testtier"
)

// TestSessionsPickedThroughDaemon: with a watch daemon serving the
// folder (which picks the session in the command's own request), the
// commands that name no session print what they print without one:
// the note of the session picked, the output of that session, and with
// another session working now the note for reading commands and the
// refusal of undo (exit 2, both listed, --json too), nothing changed.
func TestSessionsPickedThroughDaemon(t *testing.T) {
	testtier.Slow(t)
	e := newHookEnv(t)
	e.write("README.md", "# my project\n")
	e.ssClaudeTurn("claude_user_prompt_submit.json", "10:14:02", "10:15:30", func() {
		e.write("src/login.html", "<form></form>\n")
	})
	e.write("notes.txt", "mine\n")
	e.at("10:17:45")
	e.ok("watch", "--detach")
	t.Cleanup(func() { e.run("watch", "--stop") })
	var st struct {
		PID      int `json:"pid"`
		Requests int `json:"requests"`
	}
	e.okJSON(&st, "watch", "--status")
	if st.PID == 0 {
		t.Fatal("no daemon")
	}
	r0 := st.Requests
	const note = "using session 3f1c9a52 (claude, last turn 2 min ago)\n"
	if r := e.ok("status"); r.stderr != note || r.stdout != "A notes.txt\n" {
		t.Errorf("status through the daemon:\n%s", r)
	}
	var doc struct {
		Session string `json:"session"`
	}
	if r := e.okJSON(&doc, "status"); r.stderr != note || doc.Session != ssClaude {
		t.Errorf("status --json through the daemon: %+v\n%s", doc, r)
	}
	if e.okJSON(&st, "watch", "--status"); st.Requests-r0 != 2 {
		t.Errorf("two status commands took %d requests, want 2 (the session picked in each)", st.Requests-r0)
	}

	// Gemini CLI starts a turn and Claude Code ends another: reading
	// commands go on with the note; undo refuses (exit 2, both listed,
	// --json too).
	e.at("10:18:00")
	e.hook("gemini", hookPayload(t, "gemini_before_agent.json", e.dir), 0)
	e.write("src/test.js", "test()\n")
	e.ssClaudeTurn("claude_user_prompt_submit_2.json", "10:18:30", "10:19:00", func() { e.write("src/style.css", "body {}\n") })
	busy := e.tree()
	e.at("10:20:00")
	for _, args := range [][]string{{"status"}, {"diff"}, {"log"}} {
		if r := e.ok(args...); r.stderr != "using session 3f1c9a52 (claude, last turn 1 min ago)\n" {
			t.Errorf("%v with Gemini's turn open, through the daemon:\n%s\nwant the note of Claude's session", args, r)
		}
	}
	wantErr := "turnback: " + ssClaude + " (claude, last turn 1 min ago) has the folder's newest turn, but " +
		ssGemini + " (gemini, last turn 2 min ago) has a turn open right now (an agent may be working); " +
		"name one with --session (a unique prefix is enough)\nRun 'turnback --help' for usage.\n"
	if r := e.expect(2, "undo"); r.stdout != "" || r.stderr != wantErr {
		t.Errorf("undo with Gemini's turn open, through the daemon:\n%s\nwant stderr\n%s", r, wantErr)
	}
	r := e.expect(2, "--json", "undo")
	var ej struct {
		Sessions []struct {
			Name string `json:"name"`
		} `json:"sessions"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &ej); err != nil || len(ej.Sessions) != 2 {
		t.Errorf("--json undo with Gemini's turn open, through the daemon:\n%s", r)
	}
	e.same("after the refused commands", busy)
}
