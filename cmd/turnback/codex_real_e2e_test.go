package main

// An end-to-end test with the real Codex CLI: codex exec runs one turn in
// a folder prepared with "turnback init --codex", talking to a stand-in
// for the OpenAI Responses API on 127.0.0.1 that the test starts (a
// model_providers entry of a CODEX_HOME config.toml whose base_url is the
// stand-in). The stand-in scripts the model: asked with the prompt, it
// calls exec_command to create hello.txt; given the command's output, it
// ends the turn with a short text. Codex runs its hooks as it would for
// a user, so the turn is recorded by turnback itself.
//
// The test skips unless it finds codex: TURNBACK_TEST_CODEX names the
// program, else codex on PATH (.ci/run installs the npm package
// @openai/codex, which brings a native program, into its cache and sets
// the variable).

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// codexRealModel stands in for the Responses API: what it answers to one
// request, and every request body it received.
type codexRealModel struct {
	t        testing.TB
	mu       sync.Mutex
	requests []string
}

func (m *codexRealModel) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	if r.Method != http.MethodPost || r.URL.Path != "/v1/responses" {
		m.t.Logf("stand-in: unknown request %s %s (%d bytes): answered 404", r.Method, r.URL, len(body))
		w.WriteHeader(http.StatusNotFound)
		_, _ = io.WriteString(w, `{"error":{"message":"not found","type":"invalid_request_error"}}`)
		return
	}
	m.mu.Lock()
	m.requests = append(m.requests, string(body))
	n := len(m.requests)
	m.mu.Unlock()
	w.Header().Set("Content-Type", "text/event-stream")
	event := func(data map[string]any) {
		b, _ := json.Marshal(data)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", data["type"], b)
	}
	id := fmt.Sprintf("resp_%d", n)
	event(map[string]any{"type": "response.created", "response": map[string]any{"id": id}})
	event(map[string]any{"type": "response.output_item.done", "output_index": 0, "item": m.item(body, n)})
	event(map[string]any{"type": "response.completed", "response": map[string]any{"id": id,
		"usage": map[string]any{"input_tokens": 10, "output_tokens": 5, "total_tokens": 15}}})
}

// item is the model's output for one request: a function result gets the
// closing text; the prompt with exec_command offered and no result yet
// gets the call that writes hello.txt; anything else a short text.
func (m *codexRealModel) item(body []byte, n int) map[string]any {
	var req struct {
		Input []struct {
			Type    string `json:"type"`
			Role    string `json:"role"`
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
		} `json:"input"`
	}
	_ = json.Unmarshal(body, &req)
	text := "Done."
	if k := len(req.Input); k > 0 {
		last := req.Input[k-1]
		prompt := ""
		for _, c := range last.Content {
			prompt += c.Text
		}
		switch {
		case last.Type == "function_call_output":
			text = "I created hello.txt."
		case last.Role == "user" && strings.Contains(prompt, codexRealPrompt) && bytes.Contains(body, []byte(`"exec_command"`)):
			args, _ := json.Marshal(map[string]string{"cmd": `printf 'hello, world\n' > hello.txt`})
			return map[string]any{"type": "function_call", "id": fmt.Sprintf("fc_%d", n), "call_id": fmt.Sprintf("call_%d", n),
				"name": "exec_command", "arguments": string(args)}
		}
	}
	return map[string]any{"type": "message", "role": "assistant", "id": fmt.Sprintf("msg_%d", n),
		"content": []any{map[string]any{"type": "output_text", "text": text}}}
}

// received returns the request bodies received so far.
func (m *codexRealModel) received() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]string(nil), m.requests...)
}

// codexRealProgram finds the codex program or skips the test.
func codexRealProgram(t *testing.T) string {
	return realClient(t, "Codex CLI", "TURNBACK_TEST_CODEX", "codex", "@openai/codex")
}

// codexRealRun runs codex exec (args) in the project folder of e, with
// CODEX_HOME holding the stand-in's provider, and fails the test unless
// it exits 0. Codex runs a project's hooks only in a trusted project (the
// config.toml codexRealSetup writes trusts it) and only hooks the user trusted
// in its /hooks screen, which codex exec cannot show:
// --dangerously-bypass-hook-trust stands for that review; the hooks that
// run are exactly those init wrote.
func codexRealRun(t *testing.T, e *cliEnv, codex string, args ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, codex, append([]string{"exec", "--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox", "--dangerously-bypass-hook-trust"}, args...)...)
	cmd.Dir = e.dir
	cmd.Env = append(e.environ(), "CODEX_HOME="+filepath.Join(e.home, ".codex"), "STANDIN_API_KEY=dummy",
		"OPENAI_API_KEY=", "OPENAI_BASE_URL=", "RUST_LOG=")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	begin := time.Now()
	err := cmd.Run()
	t.Logf("codex exec %q: %v in %v\nstdout:\n%s\nstderr:\n%s", args, err, time.Since(begin).Round(time.Millisecond), stdout.String(), stderr.String())
	if err != nil {
		t.Fatalf("codex exec %q failed: %v", args, err)
	}
	// Codex reads hooks.json into its hook config types (the source of
	// its published schemas) and warns when a file does not fit them.
	if strings.Contains(stderr.String(), "failed to parse hooks config") {
		t.Errorf("Codex could not read a hooks file:\n%s", stderr.String())
	}
}

// codexRealSetup prepares a project folder with "turnback init --codex" and a
// CODEX_HOME whose config.toml makes the stand-in the model provider,
// starts the stand-in, and returns the folder and the stand-in.
func codexRealSetup(t *testing.T) (*cliEnv, *codexRealModel) {
	t.Helper()
	e := newHookEnv(t)
	e.write("README.md", "# my project\n")
	e.ok("init", "--codex")
	model := &codexRealModel{t: t}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: model}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	cliWriteFile(t, filepath.Join(e.home, ".codex", "config.toml"), []byte(fmt.Sprintf(`model = "gpt-5-codex"
model_provider = "standin"

[model_providers.standin]
name = "stand-in"
base_url = "http://%s/v1"
env_key = "STANDIN_API_KEY"
wire_api = "responses"

[projects.%q]
trust_level = "trusted"
`, ln.Addr(), e.dir)))
	return e, model
}

// codexRealPrompt is the prompt of the scripted turn.
const codexRealPrompt = "Create hello.txt saying hello"

// TestCodexRealTurn: a turn of the real Codex CLI, whose exec_command
// creates hello.txt, is recorded by the hooks "turnback init --codex"
// installed as one closed turn named by the prompt; "turnback undo"
// takes it back.
func TestCodexRealTurn(t *testing.T) {
	t.Parallel()
	codex := codexRealProgram(t)
	e, _ := codexRealSetup(t)
	codexRealRun(t, e, codex, codexRealPrompt)
	if got := string(e.read("hello.txt")); got != "hello, world\n" {
		t.Fatalf("hello.txt = %q", got)
	}
	doc := e.log("")
	oneEndedTurn(t, doc, codexRealPrompt, 1, 0, 0)
	if s := allHookLogs(t, e.storeRoot()); s != "" {
		t.Errorf("hook.log:\n%s", s)
	}
	e.ok("undo")
	realTurnGone(t, e, "turnback undo")
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
	codex := codexRealProgram(t)
	e, model := codexRealSetup(t)
	codexRealRun(t, e, codex, codexRealPrompt)
	sid := e.log("").Session
	if r := e.ok("undo"); !strings.HasPrefix(r.stderr, "using session "+sid[:8]+" (codex, ") {
		t.Errorf("undo:\n%s", r)
	}
	realTurnGone(t, e, "turnback undo")
	// notices counts turnback's notices in the first request of a resumed
	// prompt (it carries the conversation so far).
	const notice = "reverted file changes with turnback:\n- undid turn 1: hello.txt\n"
	notices := func(prompt string) int {
		t.Helper()
		before := len(model.received())
		codexRealRun(t, e, codex, "resume", sid, prompt)
		reqs := model.received()[before:]
		if len(reqs) == 0 {
			t.Fatalf("codex exec resume %q sent no request", prompt)
		}
		return strings.Count(reqs[0], strings.ReplaceAll(notice, "\n", `\n`))
	}
	if n := notices("What changed?"); n != 1 {
		t.Errorf("the first request after the undo holds %d notices naming hello.txt, want 1:\n%s", n, model.received()[len(model.received())-1])
	}
	if n := notices("And now?"); n != 1 {
		t.Errorf("the next prompt's request holds %d notices, want only the earlier one", n)
	}
	// Those prompts changed nothing: redo still brings the turn back.
	if r := e.ok("redo"); !strings.HasPrefix(r.stdout, "redid 1 turn") {
		t.Errorf("redo after prompts that changed nothing:\n%s", r)
	}
	if got := string(e.read("hello.txt")); got != "hello, world\n" {
		t.Errorf("after redo, hello.txt = %q", got)
	}
}
