package cli

// End-to-end tests of "turnback hook" common to both agents, and the
// helpers of every hook test (hook_claude_e2e_test.go,
// hook_gemini_e2e_test.go, hook_subfolder_e2e_test.go), driving the
// built binary on temporary folders.
//
// The hook payloads are recorded in testdata/hooks/*.json, as Claude
// Code and Gemini CLI send them. Their "cwd" is "/home/user/my-project";
// hookPayload replaces that value (and only that exact JSON string) with the
// test's folder.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/turnback/turnback"
	"github.com/turnback/turnback/manifest/treetest"
)

// hook feeds payload to "turnback hook agent" run in the project folder
// and checks what every hook run must do: stdout exactly what the agent
// accepts (agentStdout), and never exit 2.
func (e *cliEnv) hook(agent string, payload []byte, wantCode int) cliResult {
	e.t.Helper()
	r := e.exec("", payload, "hook", agent)
	checkHookResult(e.t, agent, r, wantCode)
	return r
}

func checkHookResult(t testing.TB, agent string, r cliResult, wantCode int) {
	t.Helper()
	wantOut := agentStdout(agent)
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

// hookGolden reads a recorded payload.
func hookGolden(t testing.TB, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "testdata", "hooks", name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// recordedCwd is the project folder the payloads were recorded in.
const recordedCwd = "/home/user/my-project"

// hookPayload reads a recorded payload with its cwd replaced by cwd.
func hookPayload(t testing.TB, name, cwd string) []byte {
	t.Helper()
	data := hookGolden(t, name)
	q, _ := json.Marshal(cwd)
	return bytes.ReplaceAll(data, []byte(`"`+recordedCwd+`"`), q)
}

// payloadSession returns the session_id of a payload.
func payloadSession(t testing.TB, payload []byte) string {
	t.Helper()
	var ev struct {
		SessionID string `json:"session_id"`
	}
	if err := json.Unmarshal(payload, &ev); err != nil || ev.SessionID == "" {
		t.Fatalf("payload has no session_id (%v):\n%s", err, payload)
	}
	return ev.SessionID
}

// hookLogDoc is "turnback log --json".
type hookLogDoc struct {
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

// oneEndedTurn checks that doc lists exactly one turn, closed by end,
// with message and the counts of added, modified and deleted files.
func oneEndedTurn(t testing.TB, doc hookLogDoc, message string, added, modified, deleted int) {
	t.Helper()
	if len(doc.Turns) != 1 {
		t.Fatalf("want 1 turn, got %+v", doc)
	}
	turn := doc.Turns[0]
	if turn.Open || turn.ClosedBy != "end" {
		t.Errorf("turn not closed by end: %+v", turn)
	}
	if turn.Message != message {
		t.Errorf("message = %q, want %q", turn.Message, message)
	}
	if turn.Added != added || turn.Modified != modified || turn.Deleted != deleted {
		t.Errorf("counts +%d ~%d -%d, want +%d ~%d -%d", turn.Added, turn.Modified, turn.Deleted, added, modified, deleted)
	}
}

// log runs "turnback --session S log --json" in the project folder (the
// folder is found as a user's shell would: by the current directory).
func (e *cliEnv) log(session string) hookLogDoc {
	e.t.Helper()
	args := []string{"log", "--json"}
	if session != "" {
		args = append([]string{"--session", session}, args...)
	}
	r := e.ok(args...)
	var doc hookLogDoc
	cliOneJSON(e.t, r.stdout, &doc)
	return doc
}

// allHookLogs returns hook.log of root and of every store below it.
func allHookLogs(t testing.TB, root string) string {
	t.Helper()
	out := hookLogOf(t, root)
	dirs, _ := filepath.Glob(filepath.Join(root, "*"))
	for _, d := range dirs {
		if fi, err := os.Stat(d); err == nil && fi.IsDir() {
			out += hookLogOf(t, d)
		}
	}
	return out
}

// hookLogOf returns the content of hook.log in dir ("" if absent).
func hookLogOf(t testing.TB, dir string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "hook.log"))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		t.Fatal(err)
	}
	return string(data)
}

// storeRoot is the default store root of this user.
func (e *cliEnv) storeRoot() string { return filepath.Join(e.xdg, "turnback") }

// storeDir is the store of the project folder, as "turnback info" reports it.
func (e *cliEnv) storeDir() string {
	e.t.Helper()
	r := e.ok("info", "--json")
	var doc struct {
		Store string `json:"store"`
	}
	cliOneJSON(e.t, r.stdout, &doc)
	if doc.Store == "" {
		e.t.Fatalf("info names no store:\n%s", r)
	}
	return doc.Store
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
			e := newHookEnv(t)
			e.write("a.txt", "a\n")
			before := e.tree()
			r := e.hook(c.agent, hookPayload(t, c.file, e.dir), 0)
			if r.stderr != "" {
				t.Errorf("stderr on an ignored event:\n%s", r)
			}
			if _, err := os.Stat(e.storeRoot()); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("an ignored event created %s (%v)", e.storeRoot(), err)
			}
			treetest.Check(t, "after an ignored event", e.tree(), before)
		})
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
			e := newHookEnv(t)
			e.write("README.md", "teh\n")
			e.hook(c.agent, hookPayload(t, c.snap, e.dir), 0)
			e.write("README.md", "the\n")
			doc := e.log("")
			if len(doc.Turns) != 1 || !doc.Turns[0].Open || doc.Turns[0].Message != "fix the typo in README" {
				t.Fatalf("want one open turn in the default session, got %+v", doc)
			}
			// The end event names a session, which has no open turn.
			end := hookPayload(t, c.end, e.dir)
			e.hook(c.agent, end, 0)
			if doc := e.log(payloadSession(t, end)); len(doc.Turns) != 0 {
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
		payload func(e *cliEnv) []byte
		env     []string
		logWant string // in hook.log
	}
	golden := func(name string) func(e *cliEnv) []byte {
		return func(e *cliEnv) []byte { return hookPayload(t, name, e.dir) }
	}
	var cases []errCase
	for _, agent := range []string{"claude", "gemini"} {
		cases = append(cases,
			errCase{"malformed", agent, golden("malformed.json"), nil, "not JSON"},
			errCase{"empty", agent, func(*cliEnv) []byte { return nil }, nil, "not JSON"},
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
			e := newHookEnv(t)
			e.extra = c.env
			e.write("a.txt", "a\n")
			e.hook(c.agent, c.payload(e), 1)
			// In the folder's store once the folder is known, else in the
			// default store root.
			log := allHookLogs(t, e.storeRoot())
			if !strings.Contains(log, "hook "+c.agent) || !strings.Contains(log, c.logWant) {
				t.Errorf("hook.log in %s = %q, want a line for %s containing %q", e.storeRoot(), log, c.agent, c.logWant)
			}
			if n := strings.Count(log, "\n"); n != 1 {
				t.Errorf("hook.log has %d lines, want 1:\n%s", n, log)
			}
			// Appended, not overwritten.
			e.hook(c.agent, c.payload(e), 1)
			if n := strings.Count(allHookLogs(t, e.storeRoot()), "\n"); n != 2 {
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
	e := newHookEnv(t)
	store := filepath.Join(filepath.Dir(e.xdg), "store")
	e.extra = []string{"TURNBACK_STORE=" + store}
	e.hook("claude", hookPayload(t, "malformed.json", e.dir), 1)
	if log := hookLogOf(t, store); !strings.Contains(log, "not JSON") {
		t.Errorf("hook.log in $TURNBACK_STORE = %q; hook.log in the default root = %q", log, hookLogOf(t, e.storeRoot()))
	}
}

// TestHookLogHasHint: a hook's failure is logged in hook.log as stderr
// shows it, the CLI's hint included ("put it elsewhere" for a store
// inside the folder), once.
func TestHookLogHasHint(t *testing.T) {
	t.Parallel()
	e := newHookEnv(t)
	store := filepath.Join(e.dir, ".store")
	e.extra = []string{"TURNBACK_STORE=" + store}
	e.write("a.txt", "a\n")
	const hint = "; put it elsewhere (--store or TURNBACK_STORE)"
	r := e.hook("claude", hookPayload(t, "claude_user_prompt_submit.json", e.dir), 1)
	if strings.Count(r.stderr, hint) != 1 {
		t.Errorf("stderr has the hint %d times, want once:\n%s", strings.Count(r.stderr, hint), r.stderr)
	}
	log := hookLogOf(t, store)
	if strings.Count(log, hint) != 1 || !strings.Contains(log, "hook claude: ") {
		t.Errorf("hook.log = %q, want one line for claude with the hint %q", log, hint)
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
			e := newHookEnv(t)
			// The agent runs from another folder (a subdirectory of a
			// different tree) and says so in cwd.
			elsewhere := filepath.Join(filepath.Dir(e.dir), "elsewhere", "sub")
			if err := os.MkdirAll(elsewhere, 0o755); err != nil {
				t.Fatal(err)
			}
			e.extra = []string{c.env + "=" + e.dir}
			e.write("a.txt", "a\n")
			snap := hookPayload(t, c.snap, elsewhere)
			sid := payloadSession(t, snap)
			r := e.exec(elsewhere, snap, "hook", c.agent)
			checkHookResult(t, c.agent, r, 0)
			e.write("a.txt", "changed\n")
			e.write("b.txt", "new\n")
			r = e.exec(elsewhere, hookPayload(t, c.end, elsewhere), "hook", c.agent)
			checkHookResult(t, c.agent, r, 0)

			doc := e.log(sid) // in the project folder
			if len(doc.Turns) != 1 || doc.Turns[0].Open || doc.Turns[0].Added != 1 || doc.Turns[0].Modified != 1 {
				t.Fatalf("project folder: want one closed turn +1 ~1, got %+v", doc)
			}
			// No store for the cwd: only the project's exists.
			stores, _ := filepath.Glob(filepath.Join(e.storeRoot(), "*", "worktree"))
			if len(stores) != 1 {
				t.Errorf("want exactly the project's store, got %v", stores)
			}
			r = e.exec(elsewhere, nil, "--session", sid, "log", "--json")
			var other hookLogDoc
			cliOneJSON(t, r.stdout, &other)
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
	e := newHookEnv(t)
	elsewhere := filepath.Join(filepath.Dir(e.dir), "elsewhere")
	if err := os.MkdirAll(elsewhere, 0o755); err != nil {
		t.Fatal(err)
	}
	e.extra = []string{"CLAUDE_PROJECT_DIR=" + elsewhere}
	e.write("a.txt", "a\n")
	snap := hookPayload(t, "claude_user_prompt_submit.json", elsewhere)
	sid := payloadSession(t, snap)
	checkHookResult(t, "claude", e.exec(elsewhere, snap, "-C", e.dir, "hook", "claude"), 0)
	e.write("a.txt", "b\n")
	checkHookResult(t, "claude", e.exec(elsewhere, hookPayload(t, "claude_stop.json", elsewhere), "-C", e.dir, "hook", "claude"), 0)
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
			e := newHookEnv(t)
			for i := range 200 {
				e.write(fmt.Sprintf("src/f%03d.txt", i), strings.Repeat("x", i*100))
			}
			e.extra = []string{"TURNBACK_HOOK_TIMEOUT=1ms"}
			payload := hookPayload(t, c.file, e.dir)
			r := e.hook(c.agent, payload, 0)
			if !strings.Contains(r.stderr, "warning") {
				t.Errorf("no warning on stderr:\n%s", r)
			}
			e.extra = nil
			if doc := e.log(payloadSession(t, payload)); len(doc.Turns) != 0 {
				t.Errorf("a timed-out hook recorded turns: %+v", doc)
			}
			if log := hookLogOf(t, e.storeRoot()) + hookLogOf(t, e.storeDir()); !strings.Contains(log, "hook "+c.agent) {
				t.Errorf("the skipped hook is not in hook.log (store root or store)")
			}
		})
	}
}

// TestHookStoreHeld: while another process holds the store, the hook
// waits at most its budget, then gives up with a warning and exit 0.
// (The test process holds the store through the Go API.)
func TestHookStoreHeld(t *testing.T) {
	e := newHookEnv(t)
	e.write("a.txt", "a\n")
	t.Setenv("HOME", e.home)
	t.Setenv("XDG_DATA_HOME", e.xdg)
	t.Setenv("TURNBACK_STORE", "")
	repo, err := turnback.Open(t.Context(), e.dir, turnback.Options{Holder: "TestHookStoreHeld"})
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
			r := e.hook(c.agent, hookPayload(t, c.file, e.dir), 0)
			if d := time.Since(start); d > c.maxTime {
				t.Errorf("the hook took %v with the store held", d)
			}
			if !strings.Contains(r.stderr, "warning") {
				t.Errorf("no warning on stderr:\n%s", r)
			}
		})
	}
	e.extra = nil
	turns, _, err := repo.Turns(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(turns) != 0 {
		t.Errorf("default session has turns: %v", turns)
	}
	// Nothing was recorded in the conversation's session either.
	sid := payloadSession(t, hookGolden(t, "claude_user_prompt_submit.json"))
	repo.Close()
	if doc := e.log(sid); len(doc.Turns) != 0 {
		t.Errorf("a skipped hook recorded turns: %+v", doc)
	}
	if log := hookLogOf(t, e.storeRoot()) + hookLogOf(t, repo.StoreDir()); strings.Count(log, "skipped") != 3 {
		t.Errorf("want 3 skipped hooks in hook.log, got:\n%s", log)
	}
}
