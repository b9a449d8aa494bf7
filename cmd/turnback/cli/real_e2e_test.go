package cli

// The real agent clients of real_agents_test.go, each running the
// scripted turn and, where the client has one, its /undo.

import (
	"strings"
	"testing"
)

// TestRealTurn: a turn of each real client, whose write tool creates
// hello.txt, is recorded by what "turnback init --KEY" installed as one
// closed turn named by the prompt; "turnback undo" takes it back.
func TestRealTurn(t *testing.T) {
	realEach(t, realAgents, func(t *testing.T, s *realSession) {
		s.turn()
		s.e.ok("undo")
		s.gone("turnback undo")
	})
}

// realTold fails the test unless one of the requests holds every one of
// want.
func realTold(t *testing.T, what string, reqs []string, want []string) {
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

// TestClaudeRealSlashUndo: in the same conversation (--resume), the
// installed /undo command reverts the turn, and the next prompt's request
// to the model carries the reverted path in the hook's additional context.
func TestClaudeRealSlashUndo(t *testing.T) {
	t.Parallel()
	s := realStart(t, claudeAgent)
	sid := s.turn()
	s.run("/undo", "--resume", sid)
	s.gone("/undo")
	if doc := s.e.log(""); len(doc.Turns) != 1 {
		t.Errorf("/undo made a turn: %+v", doc)
	}
	s.noHookLog(" after /undo")
	before := len(s.model.received())
	s.run("What changed?", "--resume", sid)
	realTold(t, "the prompt after /undo", s.since(before), []string{"reverted file changes with turnback", "hello.txt"})
}

// TestGeminiRealSlashUndo: in the same conversation (--resume), the /undo
// command init installed expands to the prompt "/undo", which the
// BeforeAgent hook carries out for the conversation's session: the turn
// is reverted, no turn is made for it, and the request that follows to
// the model carries the reverted path; "turnback redo" brings it back.
func TestGeminiRealSlashUndo(t *testing.T) {
	t.Parallel()
	s := realStart(t, geminiAgent)
	s.turn()
	before := len(s.model.received())
	s.run("/undo", "--resume", geminiSession)
	s.gone("/undo")
	if doc := s.e.log(geminiSession); len(doc.Turns) != 1 || !doc.Turns[0].Undone {
		t.Errorf("want the one turn, undone, and none for /undo: %+v", doc)
	}
	s.noHookLog(" after /undo")
	realTold(t, "/undo", s.since(before), []string{"turnback carried out /undo", "hello.txt"})
	s.e.ok("redo")
	if got := string(s.e.read("hello.txt")); got != "hello, world\n" {
		t.Errorf("after redo, hello.txt = %q", got)
	}
}

// TestCodexRealToldAfterUndo: after "turnback undo" (no --session: the
// Codex conversation's session, the folder's newest) the next prompt of
// the same conversation (codex exec resume) reaches the model with
// turnback's notice naming hello.txt, which the UserPromptSubmit hook
// gave Codex as additionalContext (a developer message); the prompt after
// that adds none, and since neither prompt changed a file, redo still
// brings the turn back.
func TestCodexRealToldAfterUndo(t *testing.T) {
	t.Parallel()
	s := realStart(t, codexAgent)
	sid := s.turn()
	if r := s.e.ok("undo"); !strings.HasPrefix(r.stderr, "using session "+sid[:8]+" (codex, ") {
		t.Errorf("undo:\n%s", r)
	}
	s.gone("turnback undo")
	// notices counts turnback's notices in the first request of a resumed
	// prompt (it carries the conversation so far).
	const notice = "reverted file changes with turnback:\n- undid turn 1: hello.txt\n"
	notices := func(prompt string) int {
		t.Helper()
		before := len(s.model.received())
		s.run(prompt, "resume", sid)
		reqs := s.since(before)
		if len(reqs) == 0 {
			t.Fatalf("codex exec resume %q sent no request", prompt)
		}
		return strings.Count(reqs[0], strings.ReplaceAll(notice, "\n", `\n`))
	}
	if n := notices("What changed?"); n != 1 {
		t.Errorf("the first request after the undo holds %d notices naming hello.txt, want 1:\n%s", n, s.model.received()[len(s.model.received())-1])
	}
	if n := notices("And now?"); n != 1 {
		t.Errorf("the next prompt's request holds %d notices, want only the earlier one", n)
	}
	// Those prompts changed nothing: redo still brings the turn back.
	if r := s.e.ok("redo"); !strings.HasPrefix(r.stdout, "redid 1 turn") {
		t.Errorf("redo after prompts that changed nothing:\n%s", r)
	}
	if got := string(s.e.read("hello.txt")); got != "hello, world\n" {
		t.Errorf("after redo, hello.txt = %q", got)
	}
}

// TestOpenCodeRealSlashUndo: in the same conversation (--session),
// /tb-undo reverts the turn, makes no turn of its own, and the model's
// request that follows carries turnback's report. After "turnback redo"
// and an edit of the user's, /tb-undo keeps the edit and the model's
// request carries the conflict and the next step as OpenCode's command.
// The next message tells the model, once, what undo and redo changed.
func TestOpenCodeRealSlashUndo(t *testing.T) {
	t.Parallel()
	s := realStart(t, opencodeAgent)
	e := s.e
	sid := s.turn()

	before := len(s.model.received())
	s.run("", "--session", sid, "--command", "tb-undo")
	s.gone("/tb-undo")
	if doc := e.log(sid); len(doc.Turns) != 1 || !doc.Turns[0].Undone {
		t.Errorf("want the one turn, undone, and none for /tb-undo: %+v", doc)
	}
	s.noHookLog(" after /tb-undo")
	realTold(t, "/tb-undo", s.since(before), []string{`turnback undo (/tb-undo), exit code 0:\nundid 1 turn`, "D hello.txt", "/tb-redo puts the files back"})

	e.ok("redo")
	e.write("hello.txt", "my edit\n")
	before = len(s.model.received())
	s.run("", "--session", sid, "--command", "tb-undo")
	if got := string(e.read("hello.txt")); got != "my edit\n" {
		t.Errorf("/tb-undo over the user's edit: hello.txt = %q", got)
	}
	realTold(t, "the conflicting /tb-undo", s.since(before), []string{"exit code 3", "hello.txt: modified since", "/tb-undo --force reverts them anyway"})

	before = len(s.model.received())
	s.run("What changed?", "--session", sid)
	tell := `turnback: since the last prompt the user reverted file changes with turnback:\n- undid turn 1: hello.txt\n- redid turn 1: hello.txt\n`
	realTold(t, "the next message after undo and redo", s.since(before), []string{tell})
	before = len(s.model.received())
	s.run("Anything else?", "--session", sid)
	if reqs := s.since(before); len(reqs) == 0 || strings.Count(reqs[len(reqs)-1], "since the last prompt the user reverted") != 1 {
		t.Errorf("the model is told again, or not in the history: %d requests", len(reqs))
	}
}

// TestOpenCodeRealNoTurnback: when the plugin cannot run turnback (here:
// "turnback", not on PATH), OpenCode goes on: the turn runs, and the
// plugin says so in one line on stderr, once.
func TestOpenCodeRealNoTurnback(t *testing.T) {
	t.Parallel()
	s := realStart(t, opencodeAgent)
	e := s.e
	js := string(e.read(".opencode/plugins/turnback.js"))
	e.write(".opencode/plugins/turnback.js", strings.Replace(js, "const BIN = \""+e.bin+"\"", "const BIN = \"turnback\"", 1))
	_, stderr := s.runRaw(realPrompt)
	if got := string(e.read("hello.txt")); got != "hello, world\n" {
		t.Errorf("hello.txt = %q", got)
	}
	const notice = "turnback: cannot run turnback (ENOENT): turns are not recorded; install turnback or remove the plugin turnback.js\n"
	if strings.Count(stderr, "turnback:") != 1 || !strings.Contains(stderr, notice) {
		t.Errorf("stderr should hold %q once:\n%s", notice, stderr)
	}
}
