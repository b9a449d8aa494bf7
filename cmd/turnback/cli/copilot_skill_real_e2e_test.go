package cli

import (
	"strings"
	"testing"
)

// TestCopilotRealSkillUndo: in the same conversation (--resume), the
// prompt /tb-undo has Copilot CLI's model load the skill init installed
// and run the turnback command it names with the bash tool: the turn is
// undone for the conversation's session, /tb-undo makes no turn, and the
// model's next request holds turnback's report. /tb-redo brings the file
// back, /tb-turns gives the model the list of turns, and /tb-undo
// --force passes --force on.
func TestCopilotRealSkillUndo(t *testing.T) {
	t.Parallel()
	s := realStart(t, copilotAgent)
	sid := s.turn()
	before := len(s.model.received())
	s.run("/tb-undo", s.a.resume(sid)...)
	s.gone("/tb-undo")
	if doc := s.e.log(sid); len(doc.Turns) != 1 || !doc.Turns[0].Undone {
		t.Errorf("want the one turn, undone, and none for /tb-undo: %+v", doc)
	}
	s.noHookLog(" after /tb-undo")
	realTold(t, "/tb-undo", s.since(before), []string{"undid 1 turn", "D hello.txt", "/tb-redo brings it back."})
	for _, body := range s.since(before) { // the skill found the hooks' session
		if strings.Contains(body, "this conversation has no turns") {
			t.Errorf("/tb-undo did not find the conversation's session:\n%s", body)
		}
	}

	before = len(s.model.received())
	s.run("/tb-redo", s.a.resume(sid)...)
	if got := string(s.e.read("hello.txt")); got != "hello, world\n" {
		t.Errorf("after /tb-redo, hello.txt = %q", got)
	}
	realTold(t, "/tb-redo", s.since(before), []string{"redid 1 turn", "A hello.txt"})

	before = len(s.model.received())
	s.run("/tb-turns", s.a.resume(sid)...)
	realTold(t, "/tb-turns", s.since(before), []string{realPrompt})
	if doc := s.e.log(sid); len(doc.Turns) != 1 || doc.Turns[0].Undone {
		t.Errorf("after /tb-redo and /tb-turns, want the one turn, done: %+v", doc)
	}
	s.noHookLog(" after /tb-turns")

	// What the user types after the command reaches turnback: --force
	// undoes over the user's edit.
	s.e.write("hello.txt", iaMine)
	before = len(s.model.received())
	s.run("/tb-undo --force", s.a.resume(sid)...)
	s.gone("/tb-undo --force")
	realTold(t, "/tb-undo --force", s.since(before), []string{"undid 1 turn", "D hello.txt"})
}
