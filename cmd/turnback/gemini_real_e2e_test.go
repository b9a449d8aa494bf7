package main

// An end-to-end test with the real Gemini CLI: the gemini program runs
// one turn in a folder prepared with "turnback init --gemini", talking to
// a stand-in for the Gemini API (generateContent, streamGenerateContent)
// on 127.0.0.1 that the test starts (GOOGLE_GEMINI_BASE_URL, with the
// API-key auth chosen in the user settings). The stand-in scripts the
// model: asked with the prompt, it calls write_file to create hello.txt;
// given the call's result, it ends the turn with a short text. Gemini CLI
// runs its hooks as it would for a user, so the turn is recorded by
// turnback itself.
//
// The test skips unless it finds gemini: TURNBACK_TEST_GEMINI names the
// program, else gemini on PATH (.ci/run installs the npm package
// @google/gemini-cli into its cache and sets the variable).

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

// geminiRealModel stands in for the Gemini API: what it answers to one request,
// and every request body of streamGenerateContent it received.
type geminiRealModel struct {
	t        testing.TB
	file     string // the absolute path write_file creates
	mu       sync.Mutex
	requests []string
}

// geminiRealPart is one part of a candidate's content.
type geminiRealPart map[string]any

func (m *geminiRealModel) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	path := r.URL.Path
	switch {
	case r.Method == http.MethodPost && strings.HasSuffix(path, ":streamGenerateContent"):
		m.mu.Lock()
		m.requests = append(m.requests, string(body))
		m.mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		b, _ := json.Marshal(geminiRealResponse(m.turn(body)))
		fmt.Fprintf(w, "data: %s\n\n", b)
	case r.Method == http.MethodPost && strings.HasSuffix(path, ":generateContent"):
		// Gemini CLI's side questions (which model, who speaks next):
		// JSON answers that keep it on the main model and hand back to
		// the user.
		text := `{"reasoning": "The model answered.", "next_speaker": "user"}`
		if bytes.Contains(body, []byte("complexity_score")) {
			text = `{"complexity_reasoning": "Simple.", "complexity_score": 10}`
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(geminiRealResponse(geminiRealPart{"text": text}))
	case r.Method == http.MethodPost && strings.HasSuffix(path, ":countTokens"):
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"totalTokens": 10}`)
	default:
		m.t.Logf("stand-in: unknown request %s %s (%d bytes): answered 404", r.Method, r.URL, len(body))
		w.WriteHeader(http.StatusNotFound)
		_, _ = io.WriteString(w, `{"error":{"code":404,"message":"not found","status":"NOT_FOUND"}}`)
	}
}

// turn is the model's part for one streamed request: a function result
// gets the closing text; the prompt with write_file offered and no result
// yet gets the call; anything else a short text.
func (m *geminiRealModel) turn(body []byte) geminiRealPart {
	var req struct {
		Contents []struct {
			Role  string            `json:"role"`
			Parts []json.RawMessage `json:"parts"`
		} `json:"contents"`
	}
	if err := json.Unmarshal(body, &req); err != nil || len(req.Contents) == 0 {
		return geminiRealPart{"text": "Hello."}
	}
	last := req.Contents[len(req.Contents)-1]
	lastText := ""
	for _, p := range last.Parts {
		lastText += string(p)
	}
	switch {
	case strings.Contains(lastText, `"functionResponse"`):
		return geminiRealPart{"text": "I created hello.txt."}
	case strings.Contains(lastText, geminiRealPrompt) && bytes.Contains(body, []byte(`"write_file"`)):
		return geminiRealPart{"functionCall": map[string]any{"name": "write_file",
			"args": map[string]any{"file_path": m.file, "content": "hello, world\n"}}}
	}
	return geminiRealPart{"text": "Done."}
}

// geminiRealResponse is a GenerateContentResponse with one candidate holding part.
func geminiRealResponse(part geminiRealPart) map[string]any {
	return map[string]any{
		"candidates": []any{map[string]any{
			"content":      map[string]any{"role": "model", "parts": []any{part}},
			"finishReason": "STOP", "index": 0,
		}},
		"usageMetadata": map[string]int{"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15},
		"modelVersion":  "gemini-2.5-flash",
	}
}

// received returns the bodies of streamGenerateContent received so far.
func (m *geminiRealModel) received() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]string(nil), m.requests...)
}

// geminiRealProgram finds the gemini program or skips the test.
func geminiRealProgram(t *testing.T) string {
	return realClient(t, "Gemini CLI", "TURNBACK_TEST_GEMINI", "gemini", "@google/gemini-cli")
}

// geminiRealRun runs gemini -p prompt (and flags) in the project folder of e
// against the stand-in at base, fails the test unless it exits 0, and
// returns what gemini wrote on stderr. Gemini CLI checks every settings
// file against its settings schema as it loads it and reports a file that
// does not fit ("Invalid configuration in <file>") on stderr: that fails
// the test too, so the file init wrote is checked against Gemini CLI's
// own schema on every run.
func geminiRealRun(t *testing.T, e *cliEnv, gemini, base, prompt string, flags ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	args := append([]string{"-p", prompt, "--approval-mode", "yolo", "-m", "gemini-2.5-flash"}, flags...)
	cmd := exec.CommandContext(ctx, gemini, args...)
	cmd.Dir = e.dir
	cmd.Env = append(e.environ(), "GEMINI_API_KEY=dummy", "GOOGLE_GEMINI_BASE_URL="+base,
		"GOOGLE_API_KEY=", "GOOGLE_GENAI_USE_VERTEXAI=", "GOOGLE_GENAI_USE_GCA=", "GOOGLE_CLOUD_PROJECT=",
		"GEMINI_CLI_TRUST_WORKSPACE=true", "GEMINI_CLI_NO_RELAUNCH=true", "NO_BROWSER=1")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	begin := time.Now()
	err := cmd.Run()
	t.Logf("gemini -p %q: %v in %v\nstdout:\n%s\nstderr:\n%s", prompt, err, time.Since(begin).Round(time.Millisecond), stdout.String(), stderr.String())
	if err != nil {
		t.Fatalf("gemini -p %q failed: %v", prompt, err)
	}
	if strings.Contains(stderr.String(), "Invalid configuration") {
		t.Errorf("Gemini CLI finds a settings file invalid:\n%s", stderr.String())
	}
	return stderr.String()
}

// geminiRealSetup prepares a project folder whose .gemini/settings.json is the
// one init's golden test edits (testdata/init/gemini.json: comments, the
// team's AfterAgent hook, an MCP server), with "turnback init --gemini"
// run on it, the user settings that choose the API-key auth and keep
// Gemini CLI from the network, and starts the stand-in; it returns the
// folder, the stand-in and its URL.
func geminiRealSetup(t *testing.T) (*cliEnv, *geminiRealModel, string) {
	t.Helper()
	e := newHookEnv(t)
	e.write("README.md", "# my project\n")
	settings, err := os.ReadFile(filepath.Join("testdata", "init", "gemini.json"))
	if err != nil {
		t.Fatal(err)
	}
	e.write(".gemini/settings.json", string(settings))
	e.ok("init", "--gemini")
	cliWriteFile(t, filepath.Join(e.home, ".gemini", "settings.json"), []byte(`{
  "security": {"auth": {"selectedType": "gemini-api-key"}},
  "general": {"disableAutoUpdate": true, "disableUpdateNag": true},
  "privacy": {"usageStatisticsEnabled": false},
  "telemetry": {"enabled": false}
}
`))
	model := &geminiRealModel{t: t, file: e.path("hello.txt")}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: model}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return e, model, "http://" + ln.Addr().String()
}

// geminiRealPrompt is the prompt of the scripted turn.
const geminiRealPrompt = "Create hello.txt saying hello"

// TestGeminiRealTurn: a turn of the real Gemini CLI, whose write_file
// creates hello.txt, is recorded by the hooks "turnback init --gemini"
// installed as one closed turn named by the prompt; "turnback undo"
// takes it back.
func TestGeminiRealTurn(t *testing.T) {
	t.Parallel()
	gemini := geminiRealProgram(t)
	e, _, base := geminiRealSetup(t)
	geminiRealRun(t, e, gemini, base, geminiRealPrompt)
	if got := string(e.read("hello.txt")); got != "hello, world\n" {
		t.Fatalf("hello.txt = %q", got)
	}
	doc := e.log("")
	oneEndedTurn(t, doc, geminiRealPrompt, 1, 0, 0)
	if s := allHookLogs(t, e.storeRoot()); s != "" {
		t.Errorf("hook.log:\n%s", s)
	}
	e.ok("undo")
	realTurnGone(t, e, "turnback undo")
}

// geminiRealSession is the conversation's id, given to Gemini CLI (--session-id)
// so that the test can resume it.
const geminiRealSession = "6a0f3c2e-1b4d-4e8a-9c7f-2d5e8b1a0c93"

// TestGeminiRealSlashUndo: in the same conversation (--resume), the /undo
// command init installed expands to the prompt "/undo", which the
// BeforeAgent hook carries out for the conversation's session: the turn
// is reverted, no turn is made for it, and the request that follows to
// the model carries the reverted path; "turnback redo" brings it back.
func TestGeminiRealSlashUndo(t *testing.T) {
	t.Parallel()
	gemini := geminiRealProgram(t)
	e, model, base := geminiRealSetup(t)
	geminiRealRun(t, e, gemini, base, geminiRealPrompt, "--session-id", geminiRealSession)
	if doc := e.log(""); doc.Session != geminiRealSession {
		t.Fatalf("the turn is in session %q, want %q", doc.Session, geminiRealSession)
	}
	before := len(model.received())
	geminiRealRun(t, e, gemini, base, "/undo", "--resume", geminiRealSession)
	realTurnGone(t, e, "/undo")
	if doc := e.log(geminiRealSession); len(doc.Turns) != 1 || !doc.Turns[0].Undone {
		t.Errorf("want the one turn, undone, and none for /undo: %+v", doc)
	}
	if s := allHookLogs(t, e.storeRoot()); s != "" {
		t.Errorf("hook.log after /undo:\n%s", s)
	}
	reqs := model.received()[before:]
	found := false
	for _, body := range reqs {
		found = found || strings.Contains(body, "turnback carried out /undo") && strings.Contains(body, "hello.txt")
	}
	if !found {
		t.Errorf("no request after /undo carries turnback's output naming hello.txt; %d requests:\n%s", len(reqs), strings.Join(reqs, "\n---\n"))
	}
	e.ok("redo")
	if got := string(e.read("hello.txt")); got != "hello, world\n" {
		t.Errorf("after redo, hello.txt = %q", got)
	}
}
