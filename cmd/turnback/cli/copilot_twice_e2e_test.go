package cli

import "testing"

// TestCopilotPromptTwiceKeepsTurn: Copilot CLI runs both spellings of
// its prompt hook for one prompt; when the second comes after the agent
// began writing, it must not close the first one's turn with those
// changes: the prompt's work stays one turn.
func TestCopilotPromptTwiceKeepsTurn(t *testing.T) {
	e := newAgentEnv(t, "copilot")
	e.write("index.html", "<h1>hi</h1>\n")
	snap := hookPayload(t, "copilot_user_prompt_submitted.json", e.dir)
	sid := sessionInPayload(t, snap)
	e.runAgentHooks("copilot", "userPromptSubmitted", snap, 0)
	e.write("src/login.html", "<form></form>\n") // the agent at work
	e.runAgentHooks("copilot", "UserPromptSubmit", snap, 0)
	if doc := e.log(sid); len(doc.Turns) != 1 || !doc.Turns[0].Open {
		t.Fatalf("after the second firing of one prompt: want its turn still open, got %+v", doc)
	}
	e.write("index.html", "<h1>hi</h1>\n<a href=src/login.html>log in</a>\n")
	e.runAgentHooks("copilot", "agentStop", hookPayload(t, "copilot_agent_stop.json", e.dir), 0)
	oneEndedTurn(t, e.log(sid), "Add a login form to the start page", 1, 1, 0)

	// The same prompt once the turn has ended is a new turn.
	e.runAgentHooks("copilot", "userPromptSubmitted", snap, 0)
	e.write("b.txt", "b\n")
	e.runAgentHooks("copilot", "agentStop", hookPayload(t, "copilot_agent_stop.json", e.dir), 0)
	if doc := e.log(sid); len(doc.Turns) != 2 || doc.Turns[0].Open || doc.Turns[0].Added != 1 {
		t.Errorf("the same prompt after the turn ended: want a second closed turn +1, got %+v", doc)
	}
}

// copilotUndoHow is what init --copilot says about undoing from a
// Copilot session: its skills /tb-undo, /tb-redo, /tb-turns.
const copilotUndoHow = "In Copilot CLI type /tb-undo, /tb-redo or /tb-turns: skills that have the model run turnback for the conversation (its bash tool asks first unless allowed). " +
	"Or type ! turnback undo (its shell escape), or run turnback undo in another terminal in the folder.\n"
