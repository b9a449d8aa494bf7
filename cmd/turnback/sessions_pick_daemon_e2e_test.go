package main

import (
	"encoding/json"
	"testing"

	"github.com/turnback/turnback/internal/testtier"
)

// TestSessionsPickedThroughDaemon: with a watch daemon serving the
// folder (which picks the session in the command's own request), the
// commands that name no session print what they print without one:
// the note of the session picked, the output of that session, and with
// two live sessions the refusal (exit 2, both listed, --json too),
// nothing changed.
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

	e.at("10:18:00")
	e.hook("gemini", hookPayload(t, "gemini_before_agent.json", e.dir), 0)
	e.write("src/test.js", "test()\n")
	busy := e.tree()
	e.at("10:20:00")
	wantErr := "turnback: 2 sessions had a turn in the last 10 minutes: " +
		ssGemini + " (gemini, last turn 2 min ago), " + ssClaude + " (claude, last turn 4 min ago); " +
		"name one with --session (a unique prefix is enough)\nRun 'turnback --help' for usage.\n"
	for _, args := range [][]string{{"status"}, {"diff"}, {"undo"}} {
		if r := e.expect(2, args...); r.stdout != "" || r.stderr != wantErr {
			t.Errorf("%v with two live sessions through the daemon:\n%s\nwant stderr\n%s", args, r, wantErr)
		}
	}
	r := e.expect(2, "--json", "status")
	var ej struct {
		Sessions []struct {
			Name string `json:"name"`
		} `json:"sessions"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &ej); err != nil || len(ej.Sessions) != 2 {
		t.Errorf("--json status with two live sessions through the daemon:\n%s", r)
	}
	e.same("after the refused commands", busy)
}
