package cli

// /undo, /redo and /turns as own commands inside an agent (inagent.go):
// every outcome is a report on stdout with exit 0, its next steps the
// agent's commands; a conversation without turns works on the folder's
// newest turn's session and makes no session. Driven through the exact
// command line init writes for Claude Code.

import (
	"bytes"
	"fmt"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/turnback/turnback"
)

// iaCheckpoint hides checkpoint ids.
var iaCheckpoint = regexp.MustCompile(`[0-9a-f]{12} \(turnback restore [0-9a-f]{12} goes back\)`)

// iaOwn runs /name args through the command line init wrote for Claude
// Code in conversation sid, and fails the test unless it exits 0 and
// prints want on stdout (checkpoint ids as ID) and nothing on stderr.
func iaOwn(t *testing.T, e *cliEnv, name, sid, args, want string) {
	t.Helper()
	r := iaShell(t, e, iaClaudeCommandLine(t, e, name, sid, args))
	got := iaCheckpoint.ReplaceAllString(r.stdout, "ID (turnback restore ID goes back)")
	if r.code != 0 || got != want || r.stderr != "" {
		t.Errorf("/%s %s: want exit 0 and stdout\n%s\ngot:\n%s", name, args, want, r)
	}
}

func TestInAgentEveryOutcome(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("runs the command line through sh")
	}
	t.Parallel()
	e := newHookEnv(t)
	e.write("README.md", "# my project\n")
	e.ok("init", "--claude")
	sid := payloadSession(t, hookPayload(t, "claude_user_prompt_submit.json", e.dir))
	iaClaudeTurn(t, e, "claude_user_prompt_submit.json", func() {
		e.write("README.md", "# my project\n\nNow with a login form.\n")
	})
	e.write("README.md", "# my project, mine\n\nNow with a login form.\n")
	conflict := func(own, merge string) string {
		return fmt.Sprintf(`/%s changed nothing: this file was edited after the turn (by you or a program), and %s would overwrite the edits:
  README.md: modified since%s
The edits are kept. To go on, type one of:
%s  /%s --force   %s anyway: the edits stay in a checkpoint (/redo brings them back)
  /turns   list the turns
`, own, own, map[bool]string{true: "; not merged: the edits overlap the turns' changes"}[merge != ""], map[string]string{
			"":        "  /undo --merge   take back the turn's changes and keep the edits (text files)\n",
			"--merge": "  /undo --merge=markers   merge anyway, with conflict markers where the turn and the edits overlap\n",
		}[merge], own, own)
	}
	iaOwn(t, e, "undo", sid, "", conflict("undo", ""))
	iaOwn(t, e, "undo", sid, "--merge", conflict("undo", "--merge"))
	iaOwn(t, e, "undo", sid, "2 3", "turnback: accepts at most 1 arg(s), received 2\n"+
		"Type /undo, /undo N (the last N turns), /undo --merge, /undo --force, /redo, or /turns.\n")
	iaOwn(t, e, "undo", sid, "--force", "undid 1 turn: 1 restored, 0 deleted, 0 brought back\n  M README.md\n  overwrote README.md (modified since)\n"+
		"checkpoint ID (turnback restore ID goes back)\n/redo brings it back.\n")
	if got := string(e.read("README.md")); got != "# my project\n" {
		t.Errorf("after /undo --force, README.md = %q", got)
	}
	// An edit after the undo: /redo changes nothing and says so.
	e.write("README.md", "# my project, edited after the undo\n")
	iaOwn(t, e, "redo", sid, "", "/redo changed nothing: this file was edited since the undo (by you or a program), and redo would overwrite the edits:\n"+
		"  README.md: modified since\nThe edits are kept. To go on, type one of:\n"+
		"  /redo --force   redo anyway: the edits stay in a checkpoint\n  /turns   list the turns\n")
	e.write("README.md", "# my project\n")
	iaOwn(t, e, "undo", sid, "", "nothing to undo\n")
	iaOwn(t, e, "redo", sid, "", "redid 1 turn: 1 restored, 0 deleted, 0 brought back\n  M README.md\n"+
		"checkpoint ID (turnback restore ID goes back)\n/undo takes it back again.\n")
	if got := string(e.read("README.md")); got != "# my project, mine\n\nNow with a login form.\n" {
		t.Errorf("after /redo, README.md = %q (the user's edit comes back)", got)
	}
	iaOwn(t, e, "redo", sid, "", "nothing to redo\n")
}

// TestInAgentNewConversation: in a conversation without turns, /undo,
// /redo and /turns work on the session of the folder's newest turn and
// say so; no session is made for the new conversation. When another
// session has a turn open right now, it picks none and names the
// command that picks one.
func TestInAgentNewConversation(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("runs the command line through sh")
	}
	t.Parallel()
	e := newHookEnv(t)
	e.at("10:00:00")
	e.write("README.md", "# my project\n")
	e.ok("init", "--claude")
	sid := payloadSession(t, hookPayload(t, "claude_user_prompt_submit.json", e.dir))
	iaClaudeTurn(t, e, "claude_user_prompt_submit.json", func() { e.write("login.html", "<form></form>\n") })
	e.at("10:05:00")
	const fresh = "0a1b2c3d-0000-4000-8000-000000000000"
	note := "this conversation has no turns: using session " + sid[:8] + " (claude, last turn 5 min ago), the session of the folder's newest turn\n"
	iaOwn(t, e, "undo", fresh, "", note+"undid 1 turn: 0 restored, 1 deleted, 0 brought back\n  D login.html\n"+
		"checkpoint ID (turnback restore ID goes back)\n/redo brings it back.\n")
	iaOwn(t, e, "redo", fresh, "", note+"redid 1 turn: 0 restored, 0 deleted, 1 brought back\n  A login.html\n"+
		"checkpoint ID (turnback restore ID goes back)\n/undo takes it back again.\n")
	r := iaShell(t, e, iaClaudeCommandLine(t, e, "turns", fresh, ""))
	if r.code != 0 || !strings.HasPrefix(r.stdout, note+"session "+sid+" (claude)\n") {
		t.Errorf("/turns in a new conversation:\n%s", r)
	}
	var list struct {
		Sessions []struct{ Name string } `json:"sessions"`
	}
	if e.okJSON(&list, "sessions", "--json"); len(list.Sessions) != 1 || list.Sessions[0].Name != sid {
		t.Errorf("a new conversation's /undo made a session: %+v", list)
	}

	// Another agent works right now (its turn is open): nothing is picked,
	// and the example names the conversation that is not at work.
	e.ok("--agent", "codex", "--session", "codex-1", "snap", "-m", "working")
	iaOwn(t, e, "undo", fresh, "", "Nothing was changed: this conversation has no turns, and another one may be working on this folder right now, so /undo does not guess. "+
		"Sessions with turns: codex-1 (codex, last turn just now), "+sid[:8]+" (claude, last turn 5 min ago). Type /undo --session "+sid[:8]+" (a unique start of the name is enough) to work on one.\n")
	// Naming one, by a prefix, works.
	iaOwn(t, e, "undo", fresh, "--session "+sid[:4], "undid 1 turn: 0 restored, 1 deleted, 0 brought back\n  D login.html\n"+
		"checkpoint ID (turnback restore ID goes back)\n/redo brings it back.\n")
}

// TestInAgentBusy: a store held by another turnback is reported, with
// the command to type again, and exit 0.
func TestInAgentBusy(t *testing.T) {
	var out bytes.Buffer
	g := &globals{stdout: &out, own: "undo"}
	g.ownFailure(fmt.Errorf("%w: held by process 42", turnback.ErrBusy))
	want := "turnback: cas: store busy: held by process 42\n" +
		"Nothing was changed: another turnback command was using this folder's store. Type /undo again in a moment.\n"
	if out.String() != want {
		t.Errorf("busy:\n%s\nwant:\n%s", out.String(), want)
	}
}

// TestInAgentOpenCodeNames: in OpenCode, whose /undo is its own,
// reports name turnback's commands as OpenCode has them (/tb-undo).
func TestInAgentOpenCodeNames(t *testing.T) {
	var out bytes.Buffer
	g := &globals{stdout: &out, own: "undo", agent: "opencode"}
	g.ownFailure(fmt.Errorf("%w: held by process 42", turnback.ErrBusy))
	if !strings.HasSuffix(out.String(), "Type /tb-undo again in a moment.\n") {
		t.Errorf("busy in OpenCode:\n%s", out.String())
	}
}
