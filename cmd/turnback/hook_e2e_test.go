package main

// End-to-end tests of the agent integration (turnback hook, turnback init,
// turnback version) and of the README walk-through, driving the real
// binary on temporary folders.
//
// The hook payloads are recorded in ../../testdata/hooks/*.json, as Claude
// Code and Gemini CLI send them. Their "cwd" is "/home/user/my-project";
// hkPayload replaces that value (and only that exact JSON string) with the
// test's folder.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/turnback/turnback"
)

// hkEnv is one user: a HOME, an XDG_DATA_HOME (so the stores are private
// to the test) and a project folder.
type hkEnv struct {
	t     *testing.T
	bin   string
	home  string
	xdg   string
	dir   string   // the project folder
	extra []string // more environment, KEY=VALUE
}

func newHK(t *testing.T) *hkEnv {
	t.Helper()
	base := t.TempDir()
	if real, err := filepath.EvalSymlinks(base); err == nil {
		base = real // the paths turnback prints and records are canonical
	}
	e := &hkEnv{t: t, bin: testBinary(t), home: filepath.Join(base, "home"), xdg: filepath.Join(base, "xdg"), dir: filepath.Join(base, "my-project")}
	for _, d := range []string{e.home, e.xdg, e.dir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return e
}

// environ is the process environment without anything that would point
// turnback elsewhere, plus HOME, XDG_DATA_HOME and e.extra.
func (e *hkEnv) environ() []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch {
		case strings.HasPrefix(k, "TURNBACK_"), k == "HOME", k == "XDG_DATA_HOME",
			k == "CLAUDE_PROJECT_DIR", k == "GEMINI_PROJECT_DIR":
			continue
		}
		env = append(env, kv)
	}
	// No automatic watch daemon (autowatch_test.go covers it).
	env = append(env, "HOME="+e.home, "XDG_DATA_HOME="+e.xdg, "TURNBACK_AUTO_WATCH=0")
	// Later entries win in os/exec (it dedups keeping the last).
	return append(env, e.extra...)
}

// hkResult is one run of a process.
type hkResult struct {
	stdout, stderr string
	code           int
	what           string
}

func (r hkResult) String() string {
	return fmt.Sprintf("%s: exit %d\nstdout:\n%s\nstderr:\n%s", r.what, r.code, r.stdout, r.stderr)
}

// exec runs cmd (whose Env and Dir the caller set) with stdin and waits.
func hkExec(t *testing.T, cmd *exec.Cmd, stdin []byte, what string) hkResult {
	t.Helper()
	var stdout, stderr bytes.Buffer
	cmd.Stdin = bytes.NewReader(stdin)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	res := hkResult{stdout: stdout.String(), stderr: stderr.String(), what: what}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee) && ee.Exited():
		res.code = ee.ExitCode()
	default:
		t.Fatalf("%s: %v\nstderr:\n%s", what, err, stderr.String())
	}
	return res
}

// run runs the binary in the working directory wd (the project folder if
// empty) with stdin and args.
func (e *hkEnv) run(wd string, stdin []byte, args ...string) hkResult {
	e.t.Helper()
	if wd == "" {
		wd = e.dir
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, e.bin, args...)
	cmd.Dir = wd
	cmd.Env = e.environ()
	return hkExec(e.t, cmd, stdin, "turnback "+strings.Join(args, " "))
}

// ok runs the binary in the project folder and requires exit 0.
func (e *hkEnv) ok(args ...string) hkResult {
	e.t.Helper()
	r := e.run("", nil, args...)
	if r.code != 0 {
		e.t.Fatalf("want exit 0\n%s", r)
	}
	return r
}

// hook feeds payload to "turnback hook agent" run in the project folder
// and checks what every hook run must do: stdout exactly empty for Claude
// Code and exactly "{}\n" for Gemini CLI, and never exit 2.
func (e *hkEnv) hook(agent string, payload []byte, wantCode int) hkResult {
	e.t.Helper()
	r := e.run("", payload, "hook", agent)
	hkCheckHookResult(e.t, agent, r, wantCode)
	return r
}

func hkCheckHookResult(t *testing.T, agent string, r hkResult, wantCode int) {
	t.Helper()
	wantOut := ""
	if agent == "gemini" {
		wantOut = "{}\n"
	}
	if r.stdout != wantOut {
		t.Errorf("hook %s: stdout = %q, want exactly %q\n%s", agent, r.stdout, wantOut, r)
	}
	if r.code == 2 {
		t.Errorf("hook %s exited 2, which blocks the agent\n%s", agent, r)
	}
	if r.code != wantCode {
		t.Errorf("hook %s: exit %d, want %d\n%s", agent, r.code, wantCode, r)
	}
	if wantCode != 0 && strings.TrimSpace(r.stderr) == "" {
		t.Errorf("hook %s failed with nothing on stderr\n%s", agent, r)
	}
}

// hkGolden reads a recorded payload.
func hkGolden(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "hooks", name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// hkRecordedCwd is the project folder the payloads were recorded in.
const hkRecordedCwd = "/home/user/my-project"

// hkPayload reads a recorded payload with its cwd replaced by cwd.
func hkPayload(t *testing.T, name, cwd string) []byte {
	t.Helper()
	data := hkGolden(t, name)
	q, _ := json.Marshal(cwd)
	return bytes.ReplaceAll(data, []byte(`"`+hkRecordedCwd+`"`), q)
}

// hkSessionOf returns the session_id of a payload.
func hkSessionOf(t *testing.T, payload []byte) string {
	t.Helper()
	var ev struct {
		SessionID string `json:"session_id"`
	}
	if err := json.Unmarshal(payload, &ev); err != nil || ev.SessionID == "" {
		t.Fatalf("payload has no session_id (%v):\n%s", err, payload)
	}
	return ev.SessionID
}

// hkLogDoc is "turnback log --json".
type hkLogDoc struct {
	Session string `json:"session"`
	Turns   []struct {
		Turn     int    `json:"turn"`
		Open     bool   `json:"open"`
		Undone   bool   `json:"undone"`
		ClosedBy string `json:"closed_by"`
		Message  string `json:"message"`
		Added    int    `json:"added"`
		Modified int    `json:"modified"`
		Deleted  int    `json:"deleted"`
	} `json:"turns"`
}

// log runs "turnback --session S log --json" in the project folder (the
// folder is found as a user's shell would: by the current directory).
func (e *hkEnv) log(session string) hkLogDoc {
	e.t.Helper()
	args := []string{"log", "--json"}
	if session != "" {
		args = append([]string{"--session", session}, args...)
	}
	r := e.ok(args...)
	var doc hkLogDoc
	hkOneJSON(e.t, r.stdout, &doc)
	return doc
}

// hkOneJSON decodes s, which must be exactly one JSON document.
func hkOneJSON(t *testing.T, s string, v any) {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(s))
	if err := dec.Decode(v); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, s)
	}
	var extra json.RawMessage
	if err := dec.Decode(&extra); err != io.EOF {
		t.Fatalf("more than one JSON document (%v):\n%s", err, s)
	}
}

func (e *hkEnv) write(rel, data string) {
	e.t.Helper()
	p := filepath.Join(e.dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		e.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		e.t.Fatal(err)
	}
}

func (e *hkEnv) remove(rel string) {
	e.t.Helper()
	if err := os.Remove(filepath.Join(e.dir, filepath.FromSlash(rel))); err != nil {
		e.t.Fatal(err)
	}
}

// hkTree reads every file under root (skipping skip, a top-level name)
// into path -> content; directories map to "/".
func hkTree(t *testing.T, root string, skip ...string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if rel == "." {
			return nil
		}
		for _, s := range skip {
			if rel == s || strings.HasPrefix(rel, s+"/") {
				if d.IsDir() {
					return filepath.SkipDir
				}
				return nil
			}
		}
		if d.IsDir() {
			out[rel] = "/"
			return nil
		}
		data, err := os.ReadFile(p)
		out[rel] = string(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// hkAllHookLogs returns hook.log of root and of every store below it.
func hkAllHookLogs(t *testing.T, root string) string {
	t.Helper()
	out := hkHookLog(t, root)
	dirs, _ := filepath.Glob(filepath.Join(root, "*"))
	for _, d := range dirs {
		if fi, err := os.Stat(d); err == nil && fi.IsDir() {
			out += hkHookLog(t, d)
		}
	}
	return out
}

// hkHookLog returns the content of hook.log in dir ("" if absent).
func hkHookLog(t *testing.T, dir string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "hook.log"))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		t.Fatal(err)
	}
	return string(data)
}

// storeRoot is the default store root of this user.
func (e *hkEnv) storeRoot() string { return filepath.Join(e.xdg, "turnback") }

// storeDir is the store of the project folder, as "turnback info" reports it.
func (e *hkEnv) storeDir() string {
	e.t.Helper()
	r := e.ok("info", "--json")
	var doc struct {
		Store string `json:"store"`
	}
	hkOneJSON(e.t, r.stdout, &doc)
	if doc.Store == "" {
		e.t.Fatalf("info names no store:\n%s", r)
	}
	return doc.Store
}

// TestHookClaudeTurn: UserPromptSubmit, edits, Stop make one closed turn
// in the conversation's session, named by the prompt's first line.
func TestHookClaudeTurn(t *testing.T) {
	t.Parallel()
	e := newHK(t)
	e.write("README.md", "# my project\n")
	e.write("src/app.js", "console.log('hi')\n")
	e.write("old.txt", "to be deleted\n")

	prompt := hkPayload(t, "claude_user_prompt_submit.json", e.dir)
	sid := hkSessionOf(t, prompt)
	e.hook("claude", prompt, 0)

	// The agent's turn: two files added, two modified, one deleted.
	e.write("src/login.html", "<form></form>\n")
	e.write("src/login.css", ".login {}\n")
	e.write("src/app.js", "import './login.css'\nconsole.log('hi')\n")
	e.write("README.md", "# my project\n\nNow with a login form.\n")
	e.remove("old.txt")

	// PreToolUse and SubagentStop come in the middle of a turn: ignored.
	e.hook("claude", hkPayload(t, "claude_pre_tool_use.json", e.dir), 0)
	e.hook("claude", hkPayload(t, "claude_subagent_stop.json", e.dir), 0)
	if doc := e.log(sid); len(doc.Turns) != 1 || !doc.Turns[0].Open {
		t.Fatalf("after SubagentStop: want one open turn, got %+v", doc)
	}

	e.hook("claude", hkPayload(t, "claude_stop.json", e.dir), 0)
	doc := e.log(sid)
	if doc.Session != sid {
		t.Errorf("log session = %q, want %q", doc.Session, sid)
	}
	if len(doc.Turns) != 1 {
		t.Fatalf("want 1 turn, got %+v", doc)
	}
	turn := doc.Turns[0]
	if turn.Open || turn.ClosedBy != "end" {
		t.Errorf("turn not closed by end: %+v", turn)
	}
	if want := "Add a login form to the start page"; turn.Message != want {
		t.Errorf("message = %q, want %q (the prompt's first line, trimmed)", turn.Message, want)
	}
	if turn.Added != 2 || turn.Modified != 2 || turn.Deleted != 1 {
		t.Errorf("counts +%d ~%d -%d, want +2 ~2 -1", turn.Added, turn.Modified, turn.Deleted)
	}
	// The human log shows the same.
	if r := e.ok("--session", sid, "log"); !strings.Contains(r.stdout, "+2 ~2 -1") || !strings.Contains(r.stdout, "Add a login form to the start page") {
		t.Errorf("log:\n%s", r)
	}

	// SessionEnd after Stop: no open turn, nothing recorded, still exit 0.
	e.hook("claude", hkPayload(t, "claude_session_end.json", e.dir), 0)
	if doc := e.log(sid); len(doc.Turns) != 1 {
		t.Errorf("SessionEnd changed the turns: %+v", doc)
	}
	// The conversation's turns are not in the default session.
	if doc := e.log(""); len(doc.Turns) != 0 {
		t.Errorf("default session has turns: %+v", doc)
	}
	// And nothing failed.
	if s := hkHookLog(t, e.storeRoot()) + hkHookLog(t, e.storeDir()); s != "" {
		t.Errorf("hook.log after successful hooks:\n%s", s)
	}
}

// TestHookClaudeSessionEndCloses: a conversation ended without Stop (the
// user quit mid-turn) is closed by SessionEnd.
func TestHookClaudeSessionEndCloses(t *testing.T) {
	t.Parallel()
	e := newHK(t)
	e.write("a.txt", "a\n")
	prompt := hkPayload(t, "claude_user_prompt_submit.json", e.dir)
	sid := hkSessionOf(t, prompt)
	e.hook("claude", prompt, 0)
	e.write("a.txt", "A\n")
	e.hook("claude", hkPayload(t, "claude_session_end.json", e.dir), 0)
	doc := e.log(sid)
	if len(doc.Turns) != 1 || doc.Turns[0].Open || doc.Turns[0].Modified != 1 {
		t.Fatalf("want one closed turn ~1, got %+v", doc)
	}
}

// TestHookClaudeQuietTurns: a prompt that changed nothing leaves no turn;
// Stop and SessionEnd with no open turn do nothing and succeed.
func TestHookClaudeQuietTurns(t *testing.T) {
	t.Parallel()
	e := newHK(t)
	e.write("a.txt", "a\n")
	stop := hkPayload(t, "claude_stop.json", e.dir)
	sid := hkSessionOf(t, stop)
	e.hook("claude", stop, 0) // Stop before any prompt
	e.hook("claude", hkPayload(t, "claude_user_prompt_submit.json", e.dir), 0)
	e.hook("claude", stop, 0)
	e.hook("claude", hkPayload(t, "claude_session_end.json", e.dir), 0)
	if doc := e.log(sid); len(doc.Turns) != 0 {
		t.Errorf("a turn that changed nothing was kept: %+v", doc)
	}
}

// TestHookIgnoredEvents: events turnback does not use succeed without
// touching anything, not even creating a store.
func TestHookIgnoredEvents(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ agent, file string }{
		{"claude", "claude_pre_tool_use.json"},
		{"claude", "claude_subagent_stop.json"},
		{"gemini", "gemini_before_tool.json"},
	} {
		t.Run(c.file, func(t *testing.T) {
			t.Parallel()
			e := newHK(t)
			e.write("a.txt", "a\n")
			before := hkTree(t, e.dir)
			r := e.hook(c.agent, hkPayload(t, c.file, e.dir), 0)
			if r.stderr != "" {
				t.Errorf("stderr on an ignored event:\n%s", r)
			}
			if _, err := os.Stat(e.storeRoot()); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("an ignored event created %s (%v)", e.storeRoot(), err)
			}
			if got := hkTree(t, e.dir); !reflect.DeepEqual(got, before) {
				t.Errorf("an ignored event changed the folder: %v, want %v", got, before)
			}
		})
	}
}

// TestHookGeminiTurn: BeforeAgent, edits, AfterAgent make one closed turn;
// every run prints exactly "{}" on stdout.
func TestHookGeminiTurn(t *testing.T) {
	t.Parallel()
	e := newHK(t)
	e.write("index.html", "<h1>hi</h1>\n")

	before := hkPayload(t, "gemini_before_agent.json", e.dir)
	sid := hkSessionOf(t, before)
	e.hook("gemini", before, 0)
	e.write("src/login.html", "<form></form>\n")
	e.write("index.html", "<h1>hi</h1>\n<a href=src/login.html>log in</a>\n")
	e.hook("gemini", hkPayload(t, "gemini_before_tool.json", e.dir), 0)
	e.hook("gemini", hkPayload(t, "gemini_after_agent.json", e.dir), 0)

	doc := e.log(sid)
	if len(doc.Turns) != 1 {
		t.Fatalf("want 1 turn, got %+v", doc)
	}
	turn := doc.Turns[0]
	if turn.Open || turn.ClosedBy != "end" {
		t.Errorf("turn not closed by end: %+v", turn)
	}
	if want := "Add a login form to the start page"; turn.Message != want {
		t.Errorf("message = %q, want %q", turn.Message, want)
	}
	if turn.Added != 1 || turn.Modified != 1 || turn.Deleted != 0 {
		t.Errorf("counts +%d ~%d -%d, want +1 ~1 -0", turn.Added, turn.Modified, turn.Deleted)
	}
	e.hook("gemini", hkPayload(t, "gemini_session_end.json", e.dir), 0)
	if doc := e.log(sid); len(doc.Turns) != 1 || doc.Turns[0].Open {
		t.Errorf("SessionEnd changed the turns: %+v", doc)
	}

	// A second turn closed by SessionEnd (the user quit mid-turn).
	e.hook("gemini", before, 0)
	e.remove("src/login.html")
	e.hook("gemini", hkPayload(t, "gemini_session_end.json", e.dir), 0)
	doc = e.log(sid)
	if len(doc.Turns) != 2 || doc.Turns[0].Open || doc.Turns[0].Deleted != 1 {
		t.Errorf("want the newest turn closed with -1, got %+v", doc)
	}
}

// TestHookNoSessionID: an event without a session id is recorded in the
// default session (TURNBACK_SESSION or "default").
func TestHookNoSessionID(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ agent, snap, end string }{
		{"claude", "claude_no_session_id.json", "claude_stop.json"},
		{"gemini", "gemini_no_session_id.json", "gemini_after_agent.json"},
	} {
		t.Run(c.agent, func(t *testing.T) {
			t.Parallel()
			e := newHK(t)
			e.write("README.md", "teh\n")
			e.hook(c.agent, hkPayload(t, c.snap, e.dir), 0)
			e.write("README.md", "the\n")
			doc := e.log("")
			if len(doc.Turns) != 1 || !doc.Turns[0].Open || doc.Turns[0].Message != "fix the typo in README" {
				t.Fatalf("want one open turn in the default session, got %+v", doc)
			}
			// The end event names a session, which has no open turn.
			end := hkPayload(t, c.end, e.dir)
			e.hook(c.agent, end, 0)
			if doc := e.log(hkSessionOf(t, end)); len(doc.Turns) != 0 {
				t.Errorf("end of another session recorded a turn: %+v", doc)
			}
		})
	}
}

// TestHookErrors: malformed events, events naming no folder or a missing
// one fail with exit 1 (never 2), the agent's exact stdout, a message on
// stderr and a line in hook.log in the default store root.
func TestHookErrors(t *testing.T) {
	t.Parallel()
	type errCase struct {
		name    string
		agent   string
		payload func(e *hkEnv) []byte
		env     []string
		logWant string // in hook.log
	}
	golden := func(name string) func(e *hkEnv) []byte {
		return func(e *hkEnv) []byte { return hkPayload(t, name, e.dir) }
	}
	var cases []errCase
	for _, agent := range []string{"claude", "gemini"} {
		cases = append(cases,
			errCase{"malformed", agent, golden("malformed.json"), nil, "not JSON"},
			errCase{"empty", agent, func(*hkEnv) []byte { return nil }, nil, "not JSON"},
			errCase{"no-cwd", agent, golden(agent + "_no_cwd.json"), nil, "names no folder"},
			errCase{"cwd-gone", agent, golden(agent + "_cwd_gone.json"), nil, "does not exist"},
		)
	}
	// A bad environment is a usage error elsewhere (exit 2); in a hook it
	// must be exit 1.
	cases = append(cases,
		errCase{"bad-lock-wait", "claude", golden("claude_user_prompt_submit.json"), []string{"TURNBACK_LOCK_WAIT=soon"}, "TURNBACK_LOCK_WAIT"},
		errCase{"bad-size-limit", "gemini", golden("gemini_before_agent.json"), []string{"TURNBACK_SIZE_LIMIT=huge"}, "TURNBACK_SIZE_LIMIT"},
	)
	for _, c := range cases {
		t.Run(c.agent+"/"+c.name, func(t *testing.T) {
			t.Parallel()
			e := newHK(t)
			e.extra = c.env
			e.write("a.txt", "a\n")
			e.hook(c.agent, c.payload(e), 1)
			// In the folder's store once the folder is known, else in the
			// default store root.
			log := hkAllHookLogs(t, e.storeRoot())
			if !strings.Contains(log, "hook "+c.agent) || !strings.Contains(log, c.logWant) {
				t.Errorf("hook.log in %s = %q, want a line for %s containing %q", e.storeRoot(), log, c.agent, c.logWant)
			}
			if n := strings.Count(log, "\n"); n != 1 {
				t.Errorf("hook.log has %d lines, want 1:\n%s", n, log)
			}
			// Appended, not overwritten.
			e.hook(c.agent, c.payload(e), 1)
			if n := strings.Count(hkAllHookLogs(t, e.storeRoot()), "\n"); n != 2 {
				t.Errorf("after a second failure hook.log has %d lines, want 2", n)
			}
		})
	}
}

// TestHookLogInTurnbackStore: with TURNBACK_STORE set, the store
// directory is known whatever the event says, so a failure is logged in
// $TURNBACK_STORE/hook.log, where "failures go to hook.log in the store"
// (README) sends the user.
func TestHookLogInTurnbackStore(t *testing.T) {
	t.Parallel()
	e := newHK(t)
	store := filepath.Join(filepath.Dir(e.xdg), "store")
	e.extra = []string{"TURNBACK_STORE=" + store}
	e.hook("claude", hkPayload(t, "malformed.json", e.dir), 1)
	if log := hkHookLog(t, store); !strings.Contains(log, "not JSON") {
		t.Errorf("hook.log in $TURNBACK_STORE = %q; hook.log in the default root = %q", log, hkHookLog(t, e.storeRoot()))
	}
}

// TestHookProjectDirOverridesCwd: $CLAUDE_PROJECT_DIR (and for Gemini CLI
// $GEMINI_PROJECT_DIR, else $CLAUDE_PROJECT_DIR) is the folder, whatever
// the event's cwd.
func TestHookProjectDirOverridesCwd(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, agent, snap, end, env string
	}{
		{"claude", "claude", "claude_user_prompt_submit.json", "claude_stop.json", "CLAUDE_PROJECT_DIR"},
		{"gemini", "gemini", "gemini_before_agent.json", "gemini_after_agent.json", "GEMINI_PROJECT_DIR"},
		{"gemini-claude-env", "gemini", "gemini_before_agent.json", "gemini_after_agent.json", "CLAUDE_PROJECT_DIR"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			e := newHK(t)
			// The agent runs from another folder (a subdirectory of a
			// different tree) and says so in cwd.
			elsewhere := filepath.Join(filepath.Dir(e.dir), "elsewhere", "sub")
			if err := os.MkdirAll(elsewhere, 0o755); err != nil {
				t.Fatal(err)
			}
			e.extra = []string{c.env + "=" + e.dir}
			e.write("a.txt", "a\n")
			snap := hkPayload(t, c.snap, elsewhere)
			sid := hkSessionOf(t, snap)
			r := e.run(elsewhere, snap, "hook", c.agent)
			hkCheckHookResult(t, c.agent, r, 0)
			e.write("a.txt", "changed\n")
			e.write("b.txt", "new\n")
			r = e.run(elsewhere, hkPayload(t, c.end, elsewhere), "hook", c.agent)
			hkCheckHookResult(t, c.agent, r, 0)

			doc := e.log(sid) // in the project folder
			if len(doc.Turns) != 1 || doc.Turns[0].Open || doc.Turns[0].Added != 1 || doc.Turns[0].Modified != 1 {
				t.Fatalf("project folder: want one closed turn +1 ~1, got %+v", doc)
			}
			// No store for the cwd: only the project's exists.
			stores, _ := filepath.Glob(filepath.Join(e.storeRoot(), "*", "worktree"))
			if len(stores) != 1 {
				t.Errorf("want exactly the project's store, got %v", stores)
			}
			r = e.run(elsewhere, nil, "--session", sid, "log", "--json")
			var other hkLogDoc
			hkOneJSON(t, r.stdout, &other)
			if r.code != 0 || len(other.Turns) != 0 {
				t.Errorf("cwd folder has turns: %+v\n%s", other, r)
			}
		})
	}
}

// TestHookDirFlag: an explicit -C in the hook's command line wins over
// the project directory variables and the event's cwd.
func TestHookDirFlag(t *testing.T) {
	t.Parallel()
	e := newHK(t)
	elsewhere := filepath.Join(filepath.Dir(e.dir), "elsewhere")
	if err := os.MkdirAll(elsewhere, 0o755); err != nil {
		t.Fatal(err)
	}
	e.extra = []string{"CLAUDE_PROJECT_DIR=" + elsewhere}
	e.write("a.txt", "a\n")
	snap := hkPayload(t, "claude_user_prompt_submit.json", elsewhere)
	sid := hkSessionOf(t, snap)
	hkCheckHookResult(t, "claude", e.run(elsewhere, snap, "-C", e.dir, "hook", "claude"), 0)
	e.write("a.txt", "b\n")
	hkCheckHookResult(t, "claude", e.run(elsewhere, hkPayload(t, "claude_stop.json", elsewhere), "-C", e.dir, "hook", "claude"), 0)
	if doc := e.log(sid); len(doc.Turns) != 1 || doc.Turns[0].Open || doc.Turns[0].Modified != 1 {
		t.Fatalf("-C folder: want one closed turn ~1, got %+v", doc)
	}
}

// TestHookTimeBudget: past $TURNBACK_HOOK_TIMEOUT the hook gives up: exit
// 0, a warning on stderr, the agent's exact stdout, nothing recorded.
func TestHookTimeBudget(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ agent, file string }{
		{"claude", "claude_user_prompt_submit.json"},
		{"gemini", "gemini_before_agent.json"},
	} {
		t.Run(c.agent, func(t *testing.T) {
			t.Parallel()
			e := newHK(t)
			for i := range 200 {
				e.write(fmt.Sprintf("src/f%03d.txt", i), strings.Repeat("x", i*100))
			}
			e.extra = []string{"TURNBACK_HOOK_TIMEOUT=1ms"}
			payload := hkPayload(t, c.file, e.dir)
			r := e.hook(c.agent, payload, 0)
			if !strings.Contains(r.stderr, "warning") {
				t.Errorf("no warning on stderr:\n%s", r)
			}
			e.extra = nil
			if doc := e.log(hkSessionOf(t, payload)); len(doc.Turns) != 0 {
				t.Errorf("a timed-out hook recorded turns: %+v", doc)
			}
			if log := hkHookLog(t, e.storeRoot()) + hkHookLog(t, e.storeDir()); !strings.Contains(log, "hook "+c.agent) {
				t.Errorf("the skipped hook is not in hook.log (store root or store)")
			}
		})
	}
}

// TestHookStoreHeld: while another process holds the store, the hook
// waits at most its budget, then gives up with a warning and exit 0.
// (The test process holds the store through the Go API.)
func TestHookStoreHeld(t *testing.T) {
	e := newHK(t)
	e.write("a.txt", "a\n")
	t.Setenv("HOME", e.home)
	t.Setenv("XDG_DATA_HOME", e.xdg)
	t.Setenv("TURNBACK_STORE", "")
	repo, err := turnback.Open(context.Background(), e.dir, turnback.Options{Holder: "TestHookStoreHeld"})
	if err != nil {
		t.Fatal(err)
	}
	defer repo.Close()
	for _, c := range []struct {
		name, agent, file string
		env               []string
		maxTime           time.Duration
	}{
		{"claude-budget", "claude", "claude_user_prompt_submit.json", []string{"TURNBACK_HOOK_TIMEOUT=700ms"}, 5 * time.Second},
		{"gemini-budget", "gemini", "gemini_after_agent.json", []string{"TURNBACK_HOOK_TIMEOUT=700ms"}, 5 * time.Second},
		{"claude-no-wait", "claude", "claude_stop.json", []string{"TURNBACK_LOCK_WAIT=0"}, 4 * time.Second},
	} {
		t.Run(c.name, func(t *testing.T) {
			e.extra = c.env
			start := time.Now()
			r := e.hook(c.agent, hkPayload(t, c.file, e.dir), 0)
			if d := time.Since(start); d > c.maxTime {
				t.Errorf("the hook took %v with the store held", d)
			}
			if !strings.Contains(r.stderr, "warning") {
				t.Errorf("no warning on stderr:\n%s", r)
			}
		})
	}
	e.extra = nil
	turns, _, err := repo.Turns(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(turns) != 0 {
		t.Errorf("default session has turns: %v", turns)
	}
	// Nothing was recorded in the conversation's session either.
	sid := hkSessionOf(t, hkGolden(t, "claude_user_prompt_submit.json"))
	repo.Close()
	if doc := e.log(sid); len(doc.Turns) != 0 {
		t.Errorf("a skipped hook recorded turns: %+v", doc)
	}
	if log := hkHookLog(t, e.storeRoot()) + hkHookLog(t, repo.StoreDir()); strings.Count(log, "skipped") != 3 {
		t.Errorf("want 3 skipped hooks in hook.log, got:\n%s", log)
	}
}

// hkClaudeSettings is an existing .claude/settings.json with other hooks
// and keys, hand-written (4-space indent, keys in no sorted order).
const hkClaudeSettings = `{
    "permissions": {
        "allow": ["Bash(npm run lint)", "Bash(npm run test:*)"],
        "deny": ["Read(./.env)", "Read(./secrets/**)"]
    },
    "env": {"NODE_ENV": "development", "DEBUG": "app:*"},
    "hooks": {
        "PreToolUse": [
            {
                "matcher": "Bash",
                "hooks": [{"type": "command", "command": "\"$CLAUDE_PROJECT_DIR\"/.claude/hooks/check-bash.sh", "timeout": 10}]
            }
        ],
        "Stop": [
            {"hooks": [{"type": "command", "command": "echo hi"}]}
        ]
    },
    "model": "claude-sonnet-4-5",
    "includeCoAuthoredBy": false
}
`

// hkGeminiSettings is an existing .gemini/settings.json.
const hkGeminiSettings = `{
  "general": {"preferredEditor": "vim", "vimMode": true},
  "ui": {"theme": "GitHub"},
  "hooks": {
    "BeforeTool": [
      {
        "matcher": "write_file|replace",
        "hooks": [{"name": "secret-scan", "type": "command", "command": "$GEMINI_PROJECT_DIR/.gemini/hooks/scan.sh", "timeout": 5000}]
      }
    ],
    "AfterAgent": [
      {"hooks": [{"name": "notify", "type": "command", "command": "echo hi", "timeout": 1000}]}
    ]
  },
  "mcpServers": {"docs": {"command": "docs-mcp", "args": ["--stdio"]}}
}
`

// hkKeys returns the keys of the JSON object data in their order.
func hkKeys(t *testing.T, data []byte) []string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		t.Fatalf("not a JSON object (%v):\n%s", err, data)
	}
	var keys []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, tok.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	return keys
}

// hkParse decodes data into generic values.
func hkParse(t *testing.T, data []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, data)
	}
	return m
}

// hkTurnbackHook reports whether group (one element of hooks.EVENT) is a
// group with exactly one hook, turnback's "hook agent" command.
func hkTurnbackHook(group any, agent string) (string, bool) {
	g, ok := group.(map[string]any)
	if !ok {
		return "", false
	}
	hs, ok := g["hooks"].([]any)
	if !ok || len(hs) != 1 {
		return "", false
	}
	h, ok := hs[0].(map[string]any)
	if !ok || h["type"] != "command" {
		return "", false
	}
	cmd, _ := h["command"].(string)
	if !strings.Contains(cmd, "turnback") || !strings.HasSuffix(cmd, " hook "+agent) {
		return cmd, false
	}
	return cmd, true
}

// TestInitMerge: init adds turnback's hooks and keeps every other hook
// and key, in order; a second run changes nothing.
func TestInitMerge(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		agent, flag, file, settings string
		events                      []string
		preexisting                 map[string]int // event -> groups already there
		timeout                     float64
	}{
		{"claude", "--claude", ".claude/settings.json", hkClaudeSettings,
			[]string{"UserPromptSubmit", "Stop", "SessionEnd"}, map[string]int{"PreToolUse": 1, "Stop": 1}, 30},
		{"gemini", "--gemini", ".gemini/settings.json", hkGeminiSettings,
			[]string{"BeforeAgent", "AfterAgent", "SessionEnd"}, map[string]int{"BeforeTool": 1, "AfterAgent": 1}, 30000},
	} {
		t.Run(c.agent, func(t *testing.T) {
			t.Parallel()
			e := newHK(t)
			path := filepath.Join(e.dir, filepath.FromSlash(c.file))
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte(c.settings), 0o600); err != nil {
				t.Fatal(err)
			}
			r := e.ok("init", c.flag)
			if !strings.Contains(r.stdout, "added turnback hooks") {
				t.Errorf("init output:\n%s", r)
			}
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			old, now := hkParse(t, []byte(c.settings)), hkParse(t, data)

			// Top-level keys: same, same order; all but hooks unchanged.
			if got, want := hkKeys(t, data), hkKeys(t, []byte(c.settings)); !reflect.DeepEqual(got, want) {
				t.Errorf("top-level keys %v, want %v (order kept)", got, want)
			}
			for k, v := range old {
				if k != "hooks" && !reflect.DeepEqual(now[k], v) {
					t.Errorf("%s changed: %v, was %v", k, now[k], v)
				}
			}
			// hooks: the existing events first, in their order, then the
			// new ones; existing groups unchanged and first.
			oldHooks, newHooks := old["hooks"].(map[string]any), now["hooks"].(map[string]any)
			hooksRaw := func(data []byte) []byte {
				var m map[string]json.RawMessage
				if err := json.Unmarshal(data, &m); err != nil {
					t.Fatal(err)
				}
				return m["hooks"]
			}
			gotOrder, oldOrder := hkKeys(t, hooksRaw(data)), hkKeys(t, hooksRaw([]byte(c.settings)))
			if len(gotOrder) < len(oldOrder) || !reflect.DeepEqual(gotOrder[:len(oldOrder)], oldOrder) {
				t.Errorf("hooks keys %v, want %v first", gotOrder, oldOrder)
			}
			for ev, groups := range oldHooks {
				got, _ := newHooks[ev].([]any)
				n := len(groups.([]any))
				if len(got) < n || !reflect.DeepEqual(got[:n], groups) {
					t.Errorf("hooks.%s: existing groups changed: %v, was %v", ev, got, groups)
				}
			}
			var command string
			for _, ev := range c.events {
				groups, _ := newHooks[ev].([]any)
				if want := c.preexisting[ev] + 1; len(groups) != want {
					t.Errorf("hooks.%s has %d groups, want %d", ev, len(groups), want)
					continue
				}
				last := groups[len(groups)-1]
				cmd, ok := hkTurnbackHook(last, c.agent)
				if !ok {
					t.Errorf("hooks.%s: last group is not turnback's: %v", ev, last)
				}
				if command == "" {
					command = cmd
				} else if cmd != command {
					t.Errorf("hooks.%s runs %q, others %q", ev, cmd, command)
				}
				h := last.(map[string]any)["hooks"].([]any)[0].(map[string]any)
				if h["timeout"] != c.timeout {
					t.Errorf("hooks.%s timeout = %v, want %v", ev, h["timeout"], c.timeout)
				}
			}
			// Events turnback does not use are not added.
			for ev := range newHooks {
				if _, had := oldHooks[ev]; !had && !hkContains(c.events, ev) {
					t.Errorf("unexpected event hooks.%s", ev)
				}
			}
			if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
				t.Errorf("settings mode changed: %v %v", fi.Mode(), err)
			}
			if leftovers, _ := filepath.Glob(filepath.Join(filepath.Dir(path), "*")); len(leftovers) != 1 {
				t.Errorf("files beside the settings: %v", leftovers)
			}

			// Second run: nothing changed, byte-identical.
			r = e.ok("init", c.flag)
			if !strings.Contains(r.stdout, "nothing changed") {
				t.Errorf("second init:\n%s", r)
			}
			if again, _ := os.ReadFile(path); !bytes.Equal(again, data) {
				t.Errorf("second init changed the file:\n%s\nwas:\n%s", again, data)
			}
			// Also with turnback now found on PATH (a different command
			// line for the same hook).
			e.extra = []string{"PATH=" + filepath.Dir(e.bin) + string(os.PathListSeparator) + os.Getenv("PATH")}
			r = e.ok("init", c.flag)
			if !strings.Contains(r.stdout, "nothing changed") {
				t.Errorf("init with turnback on PATH:\n%s", r)
			}
			if again, _ := os.ReadFile(path); !bytes.Equal(again, data) {
				t.Errorf("init with turnback on PATH changed the file:\n%s", again)
			}
		})
	}
}

func hkContains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// TestInitCreates: without a settings file, init creates it (and its
// directory), with -C or from the current directory.
func TestInitCreates(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		agent, flag, file string
		events            []string
		withC             bool
	}{
		{"claude", "--claude", ".claude/settings.json", []string{"UserPromptSubmit", "Stop", "SessionEnd"}, false},
		{"gemini", "--gemini", ".gemini/settings.json", []string{"BeforeAgent", "AfterAgent", "SessionEnd"}, true},
	} {
		t.Run(c.agent, func(t *testing.T) {
			t.Parallel()
			e := newHK(t)
			var r hkResult
			if c.withC {
				r = e.run(e.home, nil, "-C", e.dir, "init", c.flag)
			} else {
				r = e.run("", nil, "init", c.flag)
			}
			path := filepath.Join(e.dir, filepath.FromSlash(c.file))
			if r.code != 0 || !strings.Contains(r.stdout, path) {
				t.Fatalf("init:\n%s", r)
			}
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			m := hkParse(t, data)
			if keys := hkKeys(t, data); !reflect.DeepEqual(keys, []string{"hooks"}) {
				t.Errorf("keys %v, want [hooks]", keys)
			}
			hooks := m["hooks"].(map[string]any)
			if len(hooks) != len(c.events) {
				t.Errorf("hooks: %v, want %v", hooks, c.events)
			}
			for _, ev := range c.events {
				groups, _ := hooks[ev].([]any)
				if len(groups) != 1 {
					t.Fatalf("hooks.%s = %v", ev, hooks[ev])
				}
				if _, ok := hkTurnbackHook(groups[0], c.agent); !ok {
					t.Errorf("hooks.%s is not turnback's: %v", ev, groups[0])
				}
			}
			r = e.ok("init", c.flag)
			if !strings.Contains(r.stdout, "nothing changed") {
				t.Errorf("second init:\n%s", r)
			}
			if again, _ := os.ReadFile(path); !bytes.Equal(again, data) {
				t.Errorf("second init changed the file")
			}
			// --json: one document.
			r = e.ok("--json", "init", c.flag)
			var doc struct {
				Settings string `json:"settings"`
				Changed  *bool  `json:"changed"`
			}
			hkOneJSON(t, r.stdout, &doc)
			if doc.Settings != path || doc.Changed == nil || *doc.Changed {
				t.Errorf("init --json: %+v", doc)
			}
		})
	}
}

// TestInitMalformed: a settings file init cannot read as a JSON object
// with an object "hooks" of lists is reported (exit 1) and left
// byte-identical.
func TestInitMalformed(t *testing.T) {
	t.Parallel()
	bad := map[string]string{
		"truncated":      `{"permissions": {"allow": ["Bash(ls)"]}, "hooks": {"Stop": [`,
		"trailing-comma": "{\n  \"model\": \"x\",\n}\n",
		"not-object":     `["hooks"]`,
		"two-docs":       `{"a": 1} {"b": 2}`,
		"hooks-string":   `{"hooks": "turnback"}`,
		"event-object":   `{"hooks": {"Stop": {"command": "echo hi"}, "SessionEnd": {"command": "echo"}, "AfterAgent": {"command": "x"}, "UserPromptSubmit": 1, "BeforeAgent": 1}}`,
	}
	for _, agent := range []string{"claude", "gemini"} {
		for name, content := range bad {
			t.Run(agent+"/"+name, func(t *testing.T) {
				t.Parallel()
				e := newHK(t)
				path := filepath.Join(e.dir, "."+agent, "settings.json")
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
					t.Fatal(err)
				}
				r := e.run("", nil, "init", "--"+agent)
				if r.code != 1 {
					t.Errorf("want exit 1\n%s", r)
				}
				if r.stdout != "" {
					t.Errorf("stdout on failure:\n%s", r)
				}
				if !strings.Contains(r.stderr, path) || !strings.Contains(r.stderr, "untouched") {
					t.Errorf("stderr should name the file and say it was left untouched:\n%s", r)
				}
				if got, _ := os.ReadFile(path); string(got) != content {
					t.Errorf("file changed:\n%s", got)
				}
				if ents, _ := os.ReadDir(filepath.Dir(path)); len(ents) != 1 {
					t.Errorf("files beside the settings: %v", ents)
				}
			})
		}
	}
}

// TestInitFlags: init needs exactly one of --claude and --gemini (exit 2).
func TestInitFlags(t *testing.T) {
	t.Parallel()
	e := newHK(t)
	for _, args := range [][]string{{"init"}, {"init", "--claude", "--gemini"}, {"--json", "init"}} {
		r := e.run("", nil, args...)
		if r.code != 2 {
			t.Errorf("want exit 2\n%s", r)
		}
		if !strings.Contains(r.stderr, "--claude or --gemini") {
			t.Errorf("stderr should say which flags:\n%s", r)
		}
	}
	if ents, _ := os.ReadDir(e.dir); len(ents) != 0 {
		t.Errorf("init with bad flags created %v", ents)
	}
}

// TestVersion: "version" prints one line starting "turnback ", and with
// --json one JSON document.
func TestVersion(t *testing.T) {
	t.Parallel()
	e := newHK(t)
	r := e.ok("version")
	if !strings.HasPrefix(r.stdout, "turnback ") || strings.Count(r.stdout, "\n") != 1 || r.stderr != "" {
		t.Errorf("version:\n%s", r)
	}
	if !strings.Contains(r.stdout, runtime.GOOS+"/"+runtime.GOARCH) {
		t.Errorf("version does not name the platform:\n%s", r)
	}
	r = e.ok("--json", "version")
	var doc map[string]string
	hkOneJSON(t, r.stdout, &doc)
	if len(doc) != 1 || doc["version"] != strings.TrimSpace(e.ok("version").stdout) {
		t.Errorf("--json version = %v", doc)
	}
}

// hkGoEnv returns the go command's cache settings, so that a "go run"
// with a temporary HOME reuses the build cache.
func hkGoEnv(t *testing.T) []string {
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

// hkRunClaudeHooks does what Claude Code does for event: for every hook
// the settings file lists for it, run its command with sh -c in the
// project folder, with $CLAUDE_PROJECT_DIR set and the event on stdin.
func (e *hkEnv) hkRunClaudeHooks(event string, payload []byte) {
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
			ctx, cancel := context.WithTimeout(context.Background(), time.Duration(h.Timeout)*time.Second)
			cmd := exec.CommandContext(ctx, "sh", "-c", h.Command)
			cmd.Dir = e.dir
			cmd.Env = append(e.environ(), "CLAUDE_PROJECT_DIR="+e.dir)
			r := hkExec(e.t, cmd, payload, event+" hook: "+h.Command)
			cancel()
			hkCheckHookResult(e.t, "claude", r, 0)
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
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("simulates Claude Code's sh -c hooks")
	}
	e := newHK(t)

	// 1. From the repository root:
	//    go run ./cmd/turnback -C /path/to/folder snap -m "first turn"
	first := filepath.Join(filepath.Dir(e.dir), "folder")
	if err := os.MkdirAll(first, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(first, "notes.txt"), []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "run", "./cmd/turnback", "-C", first, "snap", "-m", "first turn")
	cmd.Dir = filepath.Join("..", "..")
	cmd.Env = append(e.environ(), hkGoEnv(t)...)
	r := hkExec(t, cmd, nil, "go run ./cmd/turnback -C "+first+` snap -m "first turn"`)
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
	p1 := hkPayload(t, "claude_user_prompt_submit.json", e.dir)
	sid := hkSessionOf(t, p1)
	stop := hkPayload(t, "claude_stop.json", e.dir)
	e.hkRunClaudeHooks("UserPromptSubmit", p1)
	e.write("src/login.html", "<form class=login></form>\n")
	e.write("src/app.ts", "import './login.html'\nexport const app = 1\n")
	e.hkRunClaudeHooks("Stop", stop)
	afterFirst := hkTree(t, e.dir)

	p2 := hkPayload(t, "claude_user_prompt_submit_2.json", e.dir)
	if hkSessionOf(t, p2) != sid {
		t.Fatal("the two prompts are not one conversation")
	}
	e.hkRunClaudeHooks("UserPromptSubmit", p2)
	e.write("src/login.html", "<form class=login-form></form>\n")
	e.write("src/login.css", ".login-form {}\n")
	e.remove("README.md")
	e.hkRunClaudeHooks("Stop", stop)
	e.hkRunClaudeHooks("SessionEnd", hkPayload(t, "claude_session_end.json", e.dir))

	// $ turnback log --session <id>
	r = e.ok("log", "--session", sid)
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], "+1 ~1 -1") || !strings.HasSuffix(lines[0], "Now rename the form's CSS classes") ||
		!strings.Contains(lines[1], "+1 ~1 -0") || !strings.HasSuffix(lines[1], "Add a login form to the start page") {
		t.Errorf("log --session:\n%s", r)
	}

	// $ turnback --session <id> undo
	r = e.ok("--session", sid, "undo")
	if !strings.HasPrefix(r.stdout, "undid 1 turn") {
		t.Errorf("undo:\n%s", r)
	}
	if got := hkTree(t, e.dir); !reflect.DeepEqual(got, afterFirst) {
		t.Errorf("after undo the folder is\n%v\nwant the state after the first prompt\n%v", got, afterFirst)
	}
}

// hkDeadlineCtx is a context whose deadline passes at its n-th Err check:
// from then on Err reports context.DeadlineExceeded and Done is closed, as
// if the hook's time budget ran out at exactly that point.
type hkDeadlineCtx struct {
	context.Context
	left atomic.Int64
	once sync.Once
	done chan struct{}
	// from, if set, makes the deadline pass instead at the first check
	// made from a function whose name contains it.
	from string
}

func newHKDeadlineCtx(n int64) *hkDeadlineCtx {
	c := &hkDeadlineCtx{Context: context.Background(), done: make(chan struct{})}
	c.left.Store(n)
	return c
}

func (c *hkDeadlineCtx) Done() <-chan struct{} { return c.done }

func (c *hkDeadlineCtx) Err() error {
	if c.from != "" {
		select {
		case <-c.done:
			return context.DeadlineExceeded
		default:
		}
		if !hkCalledFrom(c.from) {
			return nil
		}
		c.left.Store(0)
	}
	if c.left.Add(-1) < 0 {
		c.once.Do(func() { close(c.done) })
		return context.DeadlineExceeded
	}
	return nil
}

// hkCalledFrom reports whether a caller's function name contains name.
func hkCalledFrom(name string) bool {
	pc := make([]uintptr, 32)
	frames := runtime.CallersFrames(pc[:runtime.Callers(2, pc)])
	for {
		f, more := frames.Next()
		if strings.Contains(f.Function, name) {
			return true
		}
		if !more {
			return false
		}
	}
}

// TestHookBudgetExpiresMidCommit: the hook's time budget may run out at
// any point of a snap or an end. Wherever it does, the command either
// records nothing or everything: the session stays readable. The common
// case is a prompt that changed nothing (a question): its end drops the
// turn, deleting its record and rewriting the session's.
func TestHookBudgetExpiresMidCommit(t *testing.T) {
	t.Parallel()
	bg := context.Background()
	for _, step := range []string{"end", "snap"} {
		t.Run(step, func(t *testing.T) {
			t.Parallel()
			for n := int64(0); ; n++ {
				dir, store := t.TempDir(), t.TempDir()
				if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("a\n"), 0o644); err != nil {
					t.Fatal(err)
				}
				repo, err := turnback.Open(bg, dir, turnback.Options{Store: store, Session: "s"})
				if err != nil {
					t.Fatal(err)
				}
				// A turn that changed nothing is open.
				if _, err := repo.Snap(bg, "what does this code do?"); err != nil {
					t.Fatal(err)
				}
				ctx := newHKDeadlineCtx(n)
				if n == 0 {
					// The window that matters, hit deterministically: the
					// deadline passes at the commit's second write (the
					// records), after its first (the deletes).
					ctx.from = "(*Badger).Set"
				}
				var cmdErr error
				if step == "end" {
					_, cmdErr = repo.End(ctx)
				} else {
					_, cmdErr = repo.Snap(ctx, "next prompt")
				}
				turns, redo, err := repo.Turns(bg)
				repo.Close()
				if err != nil {
					where := fmt.Sprintf("at check %d", n)
					if ctx.from != "" {
						where = "between the commit's deletes and its records"
					}
					t.Fatalf("%s with the budget running out %s (%v): the session is unreadable: %v", step, where, cmdErr, err)
				}
				if cmdErr == nil {
					if n == 0 {
						continue // the fix made it one write
					}
					return // every check point was tried
				}
				if !errors.Is(cmdErr, context.DeadlineExceeded) {
					t.Fatalf("%s: %v", step, cmdErr)
				}
				if len(turns) != 1 || !turns[0].Open() || len(redo) != 0 {
					t.Fatalf("%s failed at check %d but changed the turns: %d turns, %d redo", step, n, len(turns), len(redo))
				}
				if n > 10000 {
					t.Fatal("no end to the checks")
				}
			}
		})
	}
}
