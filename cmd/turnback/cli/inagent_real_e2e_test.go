package cli

// /undo inside the real agents (issue #36, items 1 and 2): after the
// user edits the file the agent's turn wrote, /undo keeps the edit, and
// the model's next request holds turnback's conflict report with the
// commands that go on, as the user types them in the agent; in a new
// conversation, /undo undoes the folder's newest turn and says whose.
// Each client runs against its stand-in model (real_agents_test.go)
// and skips when it is not installed.

import "testing"

// iaMine is what the user writes into hello.txt after the agent's turn.
const iaMine = "my own words\n"

// iaConflictReport is what the model must be told of a /undo that met
// the user's edit of hello.txt, as the request's JSON spells it.
var iaConflictReport = []string{
	"/undo changed nothing: this file was edited after the turn (by you or a program)",
	"hello.txt: modified since",
	"/undo --merge",
	"/undo --force",
}

// iaKept fails the test unless hello.txt holds the user's edit and the
// turn is still on the undo stack.
func iaKept(t *testing.T, e *cliEnv, session string) {
	t.Helper()
	if got := string(e.read("hello.txt")); got != iaMine {
		t.Errorf("after /undo over the user's edit, hello.txt = %q, want %q", got, iaMine)
	}
	if doc := e.log(session); len(doc.Turns) != 1 || doc.Turns[0].Undone {
		t.Errorf("after a /undo that changed nothing, want the turn not undone: %+v", doc)
	}
}

// iaOneSession fails the test unless the folder has exactly one
// session: a /undo in a new conversation made none.
func iaOneSession(t *testing.T, e *cliEnv) {
	t.Helper()
	var doc struct {
		Sessions []struct {
			Name string `json:"name"`
		} `json:"sessions"`
	}
	e.okJSON(&doc, "sessions", "--json")
	if len(doc.Sessions) != 1 {
		t.Errorf("want one session, got %+v", doc.Sessions)
	}
}

// iaNewConversation is what the model is told of a /undo in a new
// conversation: the session it used, and what it did.
func iaNewConversation(session string) []string {
	return []string{"this conversation has no turns: using session " + session[:8], "undid 1 turn", "D hello.txt", "/redo brings it back."}
}

// TestRealSlashUndoConflict: /undo over the user's edit of hello.txt
// keeps the edit and tells the model the conflict. Codex CLI has no
// project commands; its prompt hook carries out a typed /undo. A client
// without resume (qwen -p starts a new conversation each time) meets the
// edit with the /undo of a conversation without turns: it works on the
// folder's newest turn and says so. Copilot CLI's user types /tb-undo,
// a skill whose command its model runs.
func TestRealSlashUndoConflict(t *testing.T) {
	realEach(t, []*realAgent{claudeAgent, geminiAgent, codexAgent, qwenAgent, copilotAgent}, func(t *testing.T, s *realSession) {
		sid := s.turn()
		s.e.write("hello.txt", iaMine)
		before := len(s.model.received())
		want := s.a.slashAll(iaConflictReport)
		if s.a.resume == nil {
			s.run("/undo")
			want = append(append([]string(nil), want...), "this conversation has no turns: using session "+sid[:8])
		} else {
			s.run(s.a.slash("/undo"), s.a.resume(sid)...)
		}
		iaKept(t, s.e, sid)
		realTold(t, s.a.prog+" "+s.a.slash("/undo"), s.since(before), want)
		if s.a.resume == nil {
			iaOneSession(t, s.e)
		}
	})
}

// TestRealSlashUndoNewConversation: /undo in a new conversation undoes
// the folder's newest turn, tells the model whose, and makes no session.
func TestRealSlashUndoNewConversation(t *testing.T) {
	realEach(t, []*realAgent{claudeAgent, geminiAgent, codexAgent, copilotAgent}, func(t *testing.T, s *realSession) {
		sid := s.turn()
		before := len(s.model.received())
		s.run(s.a.slash("/undo"))
		s.gone("/undo in a new conversation")
		realTold(t, s.a.prog+" /undo in a new conversation", s.since(before), s.a.slashAll(iaNewConversation(sid)))
		iaOneSession(t, s.e)
	})
}
