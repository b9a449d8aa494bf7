package cli

// End-to-end tests of the Claude Code hooks, and the README's walk-through
// with Claude Code, driving the built binary as Claude Code does.

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/turnback/turnback/internal/testtier"
	"github.com/turnback/turnback/manifest/treetest"
)

// TestHookClaudeTurn: UserPromptSubmit, edits, Stop make one closed turn
// in the conversation's session, named by the prompt's first line.
func TestHookClaudeTurn(t *testing.T) {
	t.Parallel()
	e := newHookEnv(t)
	e.write("README.md", "# my project\n")
	e.write("src/app.js", "console.log('hi')\n")
	e.write("old.txt", "to be deleted\n")

	prompt := hookPayload(t, "claude_user_prompt_submit.json", e.dir)
	sid := payloadSession(t, prompt)
	e.hook("claude", prompt, 0)

	// The agent's turn: two files added, two modified, one deleted.
	e.write("src/login.html", "<form></form>\n")
	e.write("src/login.css", ".login {}\n")
	e.write("src/app.js", "import './login.css'\nconsole.log('hi')\n")
	e.write("README.md", "# my project\n\nNow with a login form.\n")
	e.remove("old.txt")

	// PreToolUse and SubagentStop come in the middle of a turn: ignored.
	e.hook("claude", hookPayload(t, "claude_pre_tool_use.json", e.dir), 0)
	e.hook("claude", hookPayload(t, "claude_subagent_stop.json", e.dir), 0)
	if doc := e.log(sid); len(doc.Turns) != 1 || !doc.Turns[0].Open {
		t.Fatalf("after SubagentStop: want one open turn, got %+v", doc)
	}

	e.hook("claude", hookPayload(t, "claude_stop.json", e.dir), 0)
	doc := e.log(sid)
	if doc.Session != sid {
		t.Errorf("log session = %q, want %q", doc.Session, sid)
	}
	// Named by the prompt's first line, trimmed.
	oneEndedTurn(t, doc, "Add a login form to the start page", 2, 2, 1)
	// The human log shows the same.
	if r := e.ok("--session", sid, "log"); !strings.Contains(r.stdout, "+2 ~2 -1") || !strings.Contains(r.stdout, "Add a login form to the start page") {
		t.Errorf("log:\n%s", r)
	}

	// SessionEnd after Stop: no open turn, nothing recorded, still exit 0.
	e.hook("claude", hookPayload(t, "claude_session_end.json", e.dir), 0)
	if doc := e.log(sid); len(doc.Turns) != 1 {
		t.Errorf("SessionEnd changed the turns: %+v", doc)
	}
	// The conversation's turns are not in the default session.
	if doc := e.log("default"); len(doc.Turns) != 0 {
		t.Errorf("default session has turns: %+v", doc)
	}
	// And nothing failed.
	if s := hookLogOf(t, e.storeRoot()) + hookLogOf(t, e.storeDir()); s != "" {
		t.Errorf("hook.log after successful hooks:\n%s", s)
	}
}

// TestHookClaudeSessionEndCloses: a conversation ended without Stop (the
// user quit mid-turn) is closed by SessionEnd.
func TestHookClaudeSessionEndCloses(t *testing.T) {
	t.Parallel()
	e := newHookEnv(t)
	e.write("a.txt", "a\n")
	prompt := hookPayload(t, "claude_user_prompt_submit.json", e.dir)
	sid := payloadSession(t, prompt)
	e.hook("claude", prompt, 0)
	e.write("a.txt", "A\n")
	e.hook("claude", hookPayload(t, "claude_session_end.json", e.dir), 0)
	doc := e.log(sid)
	if len(doc.Turns) != 1 || doc.Turns[0].Open || doc.Turns[0].Modified != 1 {
		t.Fatalf("want one closed turn ~1, got %+v", doc)
	}
}

// TestHookClaudeQuietTurns: a prompt that changed nothing leaves no turn;
// Stop and SessionEnd with no open turn do nothing and succeed.
func TestHookClaudeQuietTurns(t *testing.T) {
	t.Parallel()
	e := newHookEnv(t)
	e.write("a.txt", "a\n")
	stop := hookPayload(t, "claude_stop.json", e.dir)
	sid := payloadSession(t, stop)
	e.hook("claude", stop, 0) // Stop before any prompt
	e.hook("claude", hookPayload(t, "claude_user_prompt_submit.json", e.dir), 0)
	e.hook("claude", stop, 0)
	e.hook("claude", hookPayload(t, "claude_session_end.json", e.dir), 0)
	if doc := e.log(sid); len(doc.Turns) != 0 {
		t.Errorf("a turn that changed nothing was kept: %+v", doc)
	}
}

// goEnv returns the go command's cache settings, so that a "go run"
// with a temporary HOME reuses the build cache.
func goEnv(t *testing.T) []string {
	t.Helper()
	out, err := exec.Command("go", "env", "-json", "GOCACHE", "GOMODCACHE", "GOPATH", "GOFLAGS", "GOPROXY", "GOTOOLCHAIN").Output()
	if err != nil {
		t.Fatalf("go env: %v", err)
	}
	var m map[string]string
	if err := json.Unmarshal(out, &m); err != nil {
		t.Fatal(err)
	}
	var env []string
	for k, v := range m {
		env = append(env, k+"="+v)
	}
	return env
}

// runClaudeHooks does what Claude Code does for event: for every hook
// the settings file lists for it, run its command with sh -c in the
// project folder, with $CLAUDE_PROJECT_DIR set and the event on stdin.
func (e *cliEnv) runClaudeHooks(event string, payload []byte) {
	e.t.Helper()
	data, err := os.ReadFile(filepath.Join(e.dir, ".claude", "settings.json"))
	if err != nil {
		e.t.Fatal(err)
	}
	var settings struct {
		Hooks map[string][]struct {
			Matcher string `json:"matcher"`
			Hooks   []struct {
				Type    string `json:"type"`
				Command string `json:"command"`
				Timeout int    `json:"timeout"`
			} `json:"hooks"`
		} `json:"hooks"`
	}
	if err := json.Unmarshal(data, &settings); err != nil {
		e.t.Fatal(err)
	}
	ran := 0
	for _, g := range settings.Hooks[event] {
		for _, h := range g.Hooks {
			ctx, cancel := context.WithTimeout(e.t.Context(), time.Duration(h.Timeout)*time.Second)
			cmd := exec.CommandContext(ctx, "sh", "-c", h.Command)
			cmd.Dir = e.dir
			cmd.Env = append(e.environ(), "CLAUDE_PROJECT_DIR="+e.dir)
			r := cliWait(e.t, cmd, payload, []string{"(" + event + " hook: " + h.Command + ")"})
			cancel()
			checkHookResult(e.t, "claude", r, 0)
			ran++
		}
	}
	if ran == 0 {
		e.t.Fatalf("no %s hook in .claude/settings.json:\n%s", event, data)
	}
}

// TestHookReadmeWalkthrough follows the README as a new user would: the
// first command literally, then the Claude Code section.
func TestHookReadmeWalkthrough(t *testing.T) {
	testtier.Slow(t)
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("simulates Claude Code's sh -c hooks")
	}
	e := newHookEnv(t)

	// 1. From the repository root:
	//    go run ./cmd/turnback -C /path/to/folder snap -m "first turn"
	first := filepath.Join(filepath.Dir(e.dir), "folder")
	if err := os.MkdirAll(first, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(first, "notes.txt"), []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "run", "./cmd/turnback", "-C", first, "snap", "-m", "first turn")
	cmd.Dir = filepath.Join("..", "..", "..")
	cmd.Env = append(e.environ(), goEnv(t)...)
	r := cliWait(t, cmd, nil, []string{"(go run ./cmd/turnback)", "-C", first, "snap", "-m", "first turn"})
	if r.code != 0 || !regexp.MustCompile(`^[0-9a-f]{12}\n$`).MatchString(r.stdout) {
		t.Fatalf("want a 12-hex snapshot id and exit 0\n%s", r)
	}

	// 2. With Claude Code: "go install ./cmd/turnback" puts turnback on
	// PATH; then "cd my-project && turnback init --claude".
	e.extra = []string{"PATH=" + filepath.Dir(e.bin) + string(os.PathListSeparator) + os.Getenv("PATH")}
	e.write("src/app.ts", "export const app = 1\n")
	e.write("README.md", "# my project\n")
	r = e.ok("init", "--claude")
	if !strings.Contains(r.stdout, "added turnback hooks for claude") {
		t.Fatalf("init:\n%s", r)
	}

	// The user asks for something; Claude Code runs the hooks around the
	// turn in which the agent edits files.
	p1 := hookPayload(t, "claude_user_prompt_submit.json", e.dir)
	sid := payloadSession(t, p1)
	stop := hookPayload(t, "claude_stop.json", e.dir)
	e.runClaudeHooks("UserPromptSubmit", p1)
	e.write("src/login.html", "<form class=login></form>\n")
	e.write("src/app.ts", "import './login.html'\nexport const app = 1\n")
	e.runClaudeHooks("Stop", stop)
	afterFirst := e.tree()

	p2 := hookPayload(t, "claude_user_prompt_submit_2.json", e.dir)
	if payloadSession(t, p2) != sid {
		t.Fatal("the two prompts are not one conversation")
	}
	e.runClaudeHooks("UserPromptSubmit", p2)
	e.write("src/login.html", "<form class=login-form></form>\n")
	e.write("src/login.css", ".login-form {}\n")
	e.remove("README.md")
	e.runClaudeHooks("Stop", stop)
	e.runClaudeHooks("SessionEnd", hookPayload(t, "claude_session_end.json", e.dir))

	// $ turnback log --session <id>
	r = e.ok("log", "--session", sid)
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if len(lines) != 3 || lines[0] != "session "+sid+" (claude)" ||
		!strings.Contains(lines[1], "+1 ~1 -1") || !strings.HasSuffix(lines[1], "Now rename the form's CSS classes") ||
		!strings.Contains(lines[2], "+1 ~1 -0") || !strings.HasSuffix(lines[2], "Add a login form to the start page") {
		t.Errorf("log --session:\n%s", r)
	}

	// $ turnback --session <id> undo
	r = e.ok("--session", sid, "undo")
	if !strings.HasPrefix(r.stdout, "undid 1 turn") {
		t.Errorf("undo:\n%s", r)
	}
	treetest.Check(t, "after undo (want the state after the first prompt)", e.tree(), afterFirst)
}
