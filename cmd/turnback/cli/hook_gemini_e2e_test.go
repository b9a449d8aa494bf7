package cli

// End-to-end tests of the Gemini CLI hooks, driving the built binary as
// Gemini CLI does.

import (
	"testing"
)

// TestHookGeminiTurn: BeforeAgent, edits, AfterAgent make one closed turn;
// every run prints exactly "{}" on stdout.
func TestHookGeminiTurn(t *testing.T) {
	t.Parallel()
	e := newHookEnv(t)
	e.write("index.html", "<h1>hi</h1>\n")

	before := hookPayload(t, "gemini_before_agent.json", e.dir)
	sid := payloadSession(t, before)
	e.hook("gemini", before, 0)
	e.write("src/login.html", "<form></form>\n")
	e.write("index.html", "<h1>hi</h1>\n<a href=src/login.html>log in</a>\n")
	e.hook("gemini", hookPayload(t, "gemini_before_tool.json", e.dir), 0)
	e.hook("gemini", hookPayload(t, "gemini_after_agent.json", e.dir), 0)

	doc := e.log(sid)
	oneEndedTurn(t, doc, "Add a login form to the start page", 1, 1, 0)
	e.hook("gemini", hookPayload(t, "gemini_session_end.json", e.dir), 0)
	if doc := e.log(sid); len(doc.Turns) != 1 || doc.Turns[0].Open {
		t.Errorf("SessionEnd changed the turns: %+v", doc)
	}

	// A second turn closed by SessionEnd (the user quit mid-turn).
	e.hook("gemini", before, 0)
	e.remove("src/login.html")
	e.hook("gemini", hookPayload(t, "gemini_session_end.json", e.dir), 0)
	doc = e.log(sid)
	if len(doc.Turns) != 2 || doc.Turns[0].Open || doc.Turns[0].Deleted != 1 {
		t.Errorf("want the newest turn closed with -1, got %+v", doc)
	}
}
