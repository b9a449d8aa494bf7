package main

// An end-to-end test with the real Qwen Code CLI: qwen -p runs one turn in
// a folder prepared with "turnback init --qwen", talking to a stand-in for
// an OpenAI-compatible Chat Completions API on 127.0.0.1 that the test
// starts (OPENAI_BASE_URL, with the openai auth chosen in the user
// settings). The stand-in scripts the model: asked with the prompt, it
// calls write_file to create hello.txt; given the call's result, it ends
// the turn with a short text. Qwen Code runs its hooks as it would for a
// user, so the turn is recorded by turnback itself; that the tool result
// going back to the model is not a turn of its own is checked here with
// the real client.
//
// The test skips unless it finds qwen: TURNBACK_TEST_QWEN names the
// program, else qwen on PATH (.ci/run installs the npm package
// @qwen-code/qwen-code into its cache and sets the variable).

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

// qwenRealModel stands in for the Chat Completions API: what it answers to
// one request, and every request body it received. It creates the file
// with the agent's tool for it: Qwen Code's write_file (file_path,
// content) unless tool says otherwise.
type qwenRealModel struct {
	t        testing.TB
	file     string    // the absolute path the tool creates
	tool     [3]string // the tool's name and its path and content arguments ("": write_file)
	mu       sync.Mutex
	requests []string
}

// writeTool is the tool that creates a file, and its two arguments.
func (m *qwenRealModel) writeTool() (name, path, content string) {
	if m.tool[0] == "" {
		return "write_file", "file_path", "content"
	}
	return m.tool[0], m.tool[1], m.tool[2]
}

func (m *qwenRealModel) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
		m.t.Logf("stand-in: unknown request %s %s (%d bytes): answered 404", r.Method, r.URL, len(body))
		w.WriteHeader(http.StatusNotFound)
		_, _ = io.WriteString(w, `{"error":{"message":"not found","type":"invalid_request_error"}}`)
		return
	}
	m.mu.Lock()
	m.requests = append(m.requests, string(body))
	n := len(m.requests)
	m.mu.Unlock()
	var req struct {
		Stream   bool `json:"stream"`
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
		Tools []struct {
			Function struct {
				Name string `json:"name"`
			} `json:"function"`
		} `json:"tools"`
	}
	_ = json.Unmarshal(body, &req)
	name, pathArg, contentArg := m.writeTool()
	hasWrite := false
	for _, tool := range req.Tools {
		hasWrite = hasWrite || tool.Function.Name == name
	}
	last := ""
	if k := len(req.Messages); k > 0 {
		last = req.Messages[k-1].Role + string(req.Messages[k-1].Content)
	}
	delta, finish := map[string]any{"role": "assistant", "content": "Done."}, "stop"
	switch {
	case strings.HasPrefix(last, "tool"):
		delta["content"] = "I created hello.txt."
	case strings.HasPrefix(last, "user") && strings.Contains(last, qwenRealPrompt) && hasWrite:
		args, _ := json.Marshal(map[string]string{pathArg: m.file, contentArg: "hello, world\n"})
		delta = map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{map[string]any{
			"index": 0, "id": fmt.Sprintf("call_%d", n), "type": "function",
			"function": map[string]any{"name": name, "arguments": string(args)}}}}
		finish = "tool_calls"
	}
	usage := map[string]int{"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
	if !req.Stream {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"id": fmt.Sprintf("chatcmpl-%d", n), "object": "chat.completion",
			"created": 0, "model": "stand-in", "usage": usage,
			"choices": []any{map[string]any{"index": 0, "message": delta, "finish_reason": finish}}})
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	chunk := func(choice map[string]any, usage any) {
		c := map[string]any{"id": fmt.Sprintf("chatcmpl-%d", n), "object": "chat.completion.chunk", "created": 0, "model": "stand-in",
			"choices": []any{}}
		if choice != nil {
			c["choices"] = []any{choice}
		}
		if usage != nil {
			c["usage"] = usage
		}
		b, _ := json.Marshal(c)
		fmt.Fprintf(w, "data: %s\n\n", b)
	}
	chunk(map[string]any{"index": 0, "delta": delta, "finish_reason": nil}, nil)
	chunk(map[string]any{"index": 0, "delta": map[string]any{}, "finish_reason": finish}, nil)
	chunk(nil, usage)
	fmt.Fprint(w, "data: [DONE]\n\n")
}

// received returns the request bodies received so far.
func (m *qwenRealModel) received() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]string(nil), m.requests...)
}

// qwenRealProgram finds the qwen program or skips the test.
func qwenRealProgram(t *testing.T) string {
	return realClient(t, "Qwen Code", "TURNBACK_TEST_QWEN", "qwen", "@qwen-code/qwen-code")
}

// qwenRealRun runs qwen -p prompt (and flags) in the project folder of e
// against the stand-in at base, and fails the test unless it exits 0.
func qwenRealRun(t *testing.T, e *cliEnv, qwen, base, prompt string, flags ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, qwen, append([]string{"-p", prompt, "--approval-mode", "yolo"}, flags...)...)
	cmd.Dir = e.dir
	cmd.Env = append(e.environ(), "OPENAI_API_KEY=dummy", "OPENAI_BASE_URL="+base+"/v1", "OPENAI_MODEL=stand-in",
		"QWEN_CODE_SUPPRESS_YOLO_WARNING=1", "DASHSCOPE_API_KEY=")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	begin := time.Now()
	err := cmd.Run()
	t.Logf("qwen -p %q: %v in %v\nstdout:\n%s\nstderr:\n%s", prompt, err, time.Since(begin).Round(time.Millisecond), stdout.String(), stderr.String())
	if err != nil {
		t.Fatalf("qwen -p %q failed: %v", prompt, err)
	}
}

// qwrSetup prepares a project folder with "turnback init --qwen" and
// user settings that choose the openai auth, and starts the stand-in; it
// returns the folder, the stand-in and its URL.
func qwrSetup(t *testing.T) (*cliEnv, *qwenRealModel, string) {
	t.Helper()
	e := newHookEnv(t)
	e.write("README.md", "# my project\n")
	e.ok("init", "--qwen")
	cliWriteFile(t, filepath.Join(e.home, ".qwen", "settings.json"), []byte(`{
  "security": {"auth": {"selectedType": "openai"}},
  "general": {"disableAutoUpdate": true},
  "privacy": {"usageStatisticsEnabled": false},
  "telemetry": {"enabled": false}
}
`))
	model := &qwenRealModel{t: t, file: e.path("hello.txt")}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: model}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return e, model, "http://" + ln.Addr().String()
}

// qwenRealPrompt is the prompt of the scripted turn.
const qwenRealPrompt = "Create hello.txt saying hello"

// TestQwenRealTurn: a turn of the real Qwen Code, whose write_file
// creates hello.txt and whose result goes back to the model, is recorded
// by the hooks "turnback init --qwen" installed as one closed turn named
// by the prompt; "turnback undo" takes it back.
func TestQwenRealTurn(t *testing.T) {
	t.Parallel()
	qwen := qwenRealProgram(t)
	e, model, base := qwrSetup(t)
	qwenRealRun(t, e, qwen, base, qwenRealPrompt)
	if got := string(e.read("hello.txt")); got != "hello, world\n" {
		t.Fatalf("hello.txt = %q", got)
	}
	if n := len(model.received()); n < 2 {
		t.Errorf("the model was asked %d times; want the prompt and the tool result", n)
	}
	doc := e.log("")
	oneEndedTurn(t, doc, qwenRealPrompt, 1, 0, 0)
	if s := allHookLogs(t, e.storeRoot()); s != "" {
		t.Errorf("hook.log:\n%s", s)
	}
	e.ok("undo")
	realTurnGone(t, e, "turnback undo")
}
