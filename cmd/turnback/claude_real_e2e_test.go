package main

// An end-to-end test with the real Claude Code CLI: the claude program runs
// one turn in a folder prepared with "turnback init --claude", talking to
// a stand-in for the Anthropic Messages API on 127.0.0.1 that the test
// starts. The stand-in scripts the model: asked with the prompt, it uses
// the Write tool to create hello.txt; given the tool's result, it ends the
// turn with a short text. Claude Code runs its hooks as it would for a
// user, so the turn is recorded by turnback itself.
//
// The test skips unless it finds claude: TURNBACK_TEST_CLAUDE names the
// program, else claude on PATH (.ci/run installs the npm package
// @anthropic-ai/claude-code into its cache and sets the variable).

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// claudeRealModel stands in for the model: what it answers to one request of
// POST /v1/messages, and every request body it received.
type claudeRealModel struct {
	t        testing.TB
	file     string // the absolute path the Write tool creates
	mu       sync.Mutex
	requests []string // bodies of /v1/messages, in order
}

// claudeRealRequest is the part of a Messages API request the stand-in reads.
type claudeRealRequest struct {
	Model    string `json:"model"`
	Stream   bool   `json:"stream"`
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
	Tools []struct {
		Name string `json:"name"`
	} `json:"tools"`
}

// claudeRealBlock is one content block of an answer.
type claudeRealBlock struct {
	Type  string         `json:"type"`
	Text  string         `json:"text,omitempty"`
	ID    string         `json:"id,omitempty"`
	Name  string         `json:"name,omitempty"`
	Input map[string]any `json:"input,omitempty"`
}

func (m *claudeRealModel) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	path := r.URL.Path
	switch {
	case r.Method == http.MethodPost && path == "/v1/messages":
		m.mu.Lock()
		m.requests = append(m.requests, string(body))
		m.mu.Unlock()
		m.messages(w, body)
	case r.Method == http.MethodPost && path == "/v1/messages/count_tokens":
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"input_tokens":10}`)
	default:
		m.t.Logf("stand-in: unknown request %s %s (%d bytes): answered 404", r.Method, r.URL, len(body))
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		_, _ = io.WriteString(w, `{"type":"error","error":{"type":"not_found_error","message":"not found"}}`)
	}
}

// messages answers one request: a tool result gets the turn's closing
// text; a conversation offering the Write tool that holds claudeRealPrompt but
// no tool result yet gets the Write; anything else (a later prompt, a
// title, a summary) gets a short text.
func (m *claudeRealModel) messages(w http.ResponseWriter, body []byte) {
	var req claudeRealRequest
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, "bad json", http.StatusBadRequest)
		return
	}
	hasWrite := false
	for _, tool := range req.Tools {
		hasWrite = hasWrite || tool.Name == "Write"
	}
	last := ""
	if n := len(req.Messages); n > 0 {
		last = string(req.Messages[n-1].Content)
	}
	block, stop := claudeRealBlock{Type: "text", Text: "Hello"}, "end_turn"
	switch {
	case strings.Contains(last, `"tool_result"`):
		block.Text = "I created hello.txt."
	case hasWrite && bytes.Contains(body, []byte(claudeRealPrompt)) && !bytes.Contains(body, []byte(`"tool_result"`)):
		block = claudeRealBlock{Type: "tool_use", ID: "toolu_01", Name: "Write",
			Input: map[string]any{"file_path": m.file, "content": "hello, world\n"}}
		stop = "tool_use"
	case hasWrite:
		block.Text = "Done."
	}
	if !req.Stream {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{
			"id": "msg_01", "type": "message", "role": "assistant", "model": req.Model,
			"content": []claudeRealBlock{block}, "stop_reason": stop, "stop_sequence": nil,
			"usage": map[string]int{"input_tokens": 10, "output_tokens": 5},
		})
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	event := func(name string, data any) {
		b, _ := json.Marshal(data)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", name, b)
	}
	event("message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": "msg_01", "type": "message", "role": "assistant", "model": req.Model, "content": []any{},
		"stop_reason": nil, "stop_sequence": nil, "usage": map[string]int{"input_tokens": 10, "output_tokens": 1}}})
	// The block starts empty; its one delta carries the text or the input.
	start := map[string]any{"type": "text", "text": ""}
	delta := map[string]any{"type": "text_delta", "text": block.Text}
	if block.Type == "tool_use" {
		input, _ := json.Marshal(block.Input)
		start = map[string]any{"type": "tool_use", "id": block.ID, "name": block.Name, "input": map[string]any{}}
		delta = map[string]any{"type": "input_json_delta", "partial_json": string(input)}
	}
	event("content_block_start", map[string]any{"type": "content_block_start", "index": 0, "content_block": start})
	event("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0, "delta": delta})
	event("content_block_stop", map[string]any{"type": "content_block_stop", "index": 0})
	event("message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": stop, "stop_sequence": nil},
		"usage": map[string]int{"output_tokens": 5}})
	event("message_stop", map[string]any{"type": "message_stop"})
}

// received returns the bodies of /v1/messages received so far.
func (m *claudeRealModel) received() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]string(nil), m.requests...)
}

// claudeRealProgram finds the claude program or skips the test.
func claudeRealProgram(t *testing.T) string {
	return realClient(t, "Claude Code", "TURNBACK_TEST_CLAUDE", "claude", "@anthropic-ai/claude-code")
}

// claudeRealRun runs claude -p prompt (and flags) in the project folder of e against the
// stand-in at base, and fails the test unless it exits 0.
func claudeRealRun(t *testing.T, e *cliEnv, claude, base, prompt string, flags ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	args := append([]string{"-p", prompt, "--permission-mode", "acceptEdits"}, flags...)
	cmd := exec.CommandContext(ctx, claude, args...)
	cmd.Dir = e.dir
	cmd.Env = append(e.environ(),
		"ANTHROPIC_BASE_URL="+base, "ANTHROPIC_API_KEY=dummy", "ANTHROPIC_AUTH_TOKEN=", "CLAUDE_CODE_USE_BEDROCK=", "CLAUDE_CODE_USE_VERTEX=",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_AUTOUPDATER=1", "DISABLE_TELEMETRY=1",
		"DISABLE_ERROR_REPORTING=1", "CLAUDE_CONFIG_DIR="+filepath.Join(e.home, ".claude"))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	begin := time.Now()
	err := cmd.Run()
	t.Logf("claude -p %q: %v in %v\nstdout:\n%s\nstderr:\n%s", prompt, err, time.Since(begin).Round(time.Millisecond), stdout.String(), stderr.String())
	if err != nil {
		t.Fatalf("claude -p %q failed: %v", prompt, err)
	}
	// Claude Code checks settings files against its settings schema as
	// it loads them and names the entries it skips.
	if out := stdout.String() + stderr.String(); strings.Contains(out, "settings entries were skipped") {
		t.Errorf("Claude Code skipped settings entries:\n%s", out)
	}
}

// claudeRealSetup prepares a project folder whose .claude/settings.json is the
// one init's golden test edits (testdata/init/claude.json: permissions,
// other hooks, a model), with "turnback init --claude" run on it, and
// starts the stand-in; it returns the folder, the stand-in and its URL.
func claudeRealSetup(t *testing.T) (*cliEnv, *claudeRealModel, string) {
	t.Helper()
	e := newHookEnv(t)
	e.write("README.md", "# my project\n")
	settings, err := os.ReadFile(filepath.Join("testdata", "init", "claude.json"))
	if err != nil {
		t.Fatal(err)
	}
	e.write(".claude/settings.json", string(settings))
	e.ok("init", "--claude")
	model := &claudeRealModel{t: t, file: e.path("hello.txt")}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: model}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return e, model, "http://" + ln.Addr().String()
}

// claudeRealPrompt is the prompt of the scripted turn.
const claudeRealPrompt = "Create hello.txt saying hello"

// claudeRealTurn runs the scripted turn (claude -p claudeRealPrompt, which creates
// hello.txt) and checks what the hooks recorded: one closed turn named by
// the prompt, hello.txt added. It returns the conversation's session.
func claudeRealTurn(t *testing.T, e *cliEnv, claude, base string) string {
	t.Helper()
	claudeRealRun(t, e, claude, base, claudeRealPrompt)
	if got := string(e.read("hello.txt")); got != "hello, world\n" {
		t.Fatalf("hello.txt = %q", got)
	}
	doc := e.log("")
	oneEndedTurn(t, doc, claudeRealPrompt, 1, 0, 0)
	if s := allHookLogs(t, e.storeRoot()); s != "" {
		t.Errorf("hook.log:\n%s", s)
	}
	return doc.Session
}

// realTurnGone fails the test unless hello.txt is gone and README.md as it was.
func realTurnGone(t *testing.T, e *cliEnv, after string) {
	t.Helper()
	if _, err := os.Stat(e.path("hello.txt")); !os.IsNotExist(err) {
		t.Fatalf("after %s, hello.txt: %v", after, err)
	}
	if got := string(e.read("README.md")); got != "# my project\n" {
		t.Errorf("after %s, README.md = %q", after, got)
	}
}

// TestClaudeRealTurn: a turn of the real Claude Code, whose Write creates
// hello.txt, is recorded by the hooks "turnback init --claude" installed
// as one closed turn named by the prompt; "turnback undo" takes it back.
func TestClaudeRealTurn(t *testing.T) {
	t.Parallel()
	claude := claudeRealProgram(t)
	e, _, base := claudeRealSetup(t)
	claudeRealTurn(t, e, claude, base)
	e.ok("undo")
	realTurnGone(t, e, "turnback undo")
}

// TestClaudeRealSlashUndo: in the same conversation (--resume), the
// installed /undo command reverts the turn, and the next prompt's request
// to the model carries the reverted path in the hook's additional context.
func TestClaudeRealSlashUndo(t *testing.T) {
	t.Parallel()
	claude := claudeRealProgram(t)
	e, model, base := claudeRealSetup(t)
	sid := claudeRealTurn(t, e, claude, base)
	claudeRealRun(t, e, claude, base, "/undo", "--resume", sid)
	realTurnGone(t, e, "/undo")
	if doc := e.log(""); len(doc.Turns) != 1 {
		t.Errorf("/undo made a turn: %+v", doc)
	}
	if s := allHookLogs(t, e.storeRoot()); s != "" {
		t.Errorf("hook.log after /undo:\n%s", s)
	}

	before := len(model.received())
	claudeRealRun(t, e, claude, base, "What changed?", "--resume", sid)
	reqs := model.received()[before:]
	found := false
	for _, body := range reqs {
		found = found || strings.Contains(body, "reverted file changes with turnback") && strings.Contains(body, "hello.txt")
	}
	if !found {
		t.Errorf("no request after /undo tells the model that hello.txt was reverted; %d requests:\n%s", len(reqs), strings.Join(reqs, "\n---\n"))
	}
}
