package main

// /undo inside the real agents (issue #36, items 1 and 2): after the
// user edits the file the agent's turn wrote, /undo keeps the edit, and
// the model's next request holds turnback's conflict report with the
// commands that go on, as the user types them in the agent; in a new
// conversation, /undo undoes the folder's newest turn and says whose.
// Each client runs against its stand-in model (the *_real_e2e_test.go
// files of each agent) and skips when it is not installed.

import (
	"strings"
	"testing"
)

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

// iaTold fails the test unless one of the requests holds every one of
// want.
func iaTold(t *testing.T, what string, reqs []string, want []string) {
	t.Helper()
	for _, body := range reqs {
		all := true
		for _, w := range want {
			all = all && strings.Contains(body, w)
		}
		if all {
			return
		}
	}
	t.Errorf("%s: no request to the model holds %q; %d requests:\n%s", what, want, len(reqs), strings.Join(reqs, "\n---\n"))
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

func TestClaudeRealSlashUndoConflict(t *testing.T) {
	t.Parallel()
	claude := claudeRealProgram(t)
	e, model, base := claudeRealSetup(t)
	sid := claudeRealTurn(t, e, claude, base)
	e.write("hello.txt", iaMine)
	before := len(model.received())
	claudeRealRun(t, e, claude, base, "/undo", "--resume", sid)
	iaKept(t, e, sid)
	iaTold(t, "claude /undo", model.received()[before:], iaConflictReport)
}

func TestClaudeRealSlashUndoNewConversation(t *testing.T) {
	t.Parallel()
	claude := claudeRealProgram(t)
	e, model, base := claudeRealSetup(t)
	sid := claudeRealTurn(t, e, claude, base)
	before := len(model.received())
	claudeRealRun(t, e, claude, base, "/undo") // claude -p starts a new conversation
	realTurnGone(t, e, "/undo in a new conversation")
	iaTold(t, "claude /undo in a new conversation", model.received()[before:], iaNewConversation(sid))
	iaOneSession(t, e)
}

func TestGeminiRealSlashUndoConflict(t *testing.T) {
	t.Parallel()
	gemini := geminiRealProgram(t)
	e, model, base := geminiRealSetup(t)
	geminiRealRun(t, e, gemini, base, geminiRealPrompt, "--session-id", geminiRealSession)
	e.write("hello.txt", iaMine)
	before := len(model.received())
	geminiRealRun(t, e, gemini, base, "/undo", "--resume", geminiRealSession)
	iaKept(t, e, geminiRealSession)
	iaTold(t, "gemini /undo", model.received()[before:], iaConflictReport)
}

func TestGeminiRealSlashUndoNewConversation(t *testing.T) {
	t.Parallel()
	gemini := geminiRealProgram(t)
	e, model, base := geminiRealSetup(t)
	geminiRealRun(t, e, gemini, base, geminiRealPrompt, "--session-id", geminiRealSession)
	before := len(model.received())
	geminiRealRun(t, e, gemini, base, "/undo")
	realTurnGone(t, e, "/undo in a new conversation")
	iaTold(t, "gemini /undo in a new conversation", model.received()[before:], iaNewConversation(geminiRealSession))
	iaOneSession(t, e)
}

// TestCodexRealSlashUndoConflict: Codex CLI has no project commands; its
// prompt hook carries out a typed /undo and gives the model the report.
func TestCodexRealSlashUndoConflict(t *testing.T) {
	t.Parallel()
	codex := codexRealProgram(t)
	e, model := codexRealSetup(t)
	codexRealRun(t, e, codex, codexRealPrompt)
	sid := e.log("").Session
	e.write("hello.txt", iaMine)
	before := len(model.received())
	codexRealRun(t, e, codex, "resume", sid, "/undo")
	iaKept(t, e, sid)
	iaTold(t, "codex /undo", model.received()[before:], iaConflictReport)
}

func TestCodexRealSlashUndoNewConversation(t *testing.T) {
	t.Parallel()
	codex := codexRealProgram(t)
	e, model := codexRealSetup(t)
	codexRealRun(t, e, codex, codexRealPrompt)
	sid := e.log("").Session
	before := len(model.received())
	codexRealRun(t, e, codex, "/undo")
	realTurnGone(t, e, "/undo in a new conversation")
	iaTold(t, "codex /undo in a new conversation", model.received()[before:], iaNewConversation(sid))
	iaOneSession(t, e)
}

// TestQwenRealSlashUndoConflict: qwen -p starts a new conversation each
// time, so its /undo is also the one of a conversation without turns:
// it works on the folder's newest turn, and meets the user's edit.
func TestQwenRealSlashUndoConflict(t *testing.T) {
	t.Parallel()
	qwen := qwenRealProgram(t)
	e, model, base := qwrSetup(t)
	qwenRealRun(t, e, qwen, base, qwenRealPrompt)
	sid := e.log("").Session
	e.write("hello.txt", iaMine)
	before := len(model.received())
	qwenRealRun(t, e, qwen, base, "/undo")
	iaKept(t, e, sid)
	iaTold(t, "qwen /undo", model.received()[before:], append(iaConflictReport, "this conversation has no turns: using session "+sid[:8]))
	iaOneSession(t, e)
}
