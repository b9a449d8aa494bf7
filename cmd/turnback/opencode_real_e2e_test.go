package main

// End-to-end tests with the real OpenCode: "opencode run" runs turns in a
// folder prepared with "turnback init --opencode", talking to a stand-in
// for the Anthropic Messages API on 127.0.0.1 that the test starts,
// named in the project's opencode.json as a provider with a base URL. The same server
// stands in for the npm registry, from which OpenCode installs
// @opencode-ai/plugin into .opencode/ as it starts: it serves a tiny
// package of that name, so OpenCode writes its package.json, lock file,
// node_modules and .gitignore there as it does for a user, and the turn
// must not hold them. The plugin init wrote records the turns, carries
// out /tb-undo, and tells the model.
//
// The tests skip unless they find opencode: TURNBACK_TEST_OPENCODE names
// the program, else opencode on PATH (.ci/run installs the npm package
// opencode-ai into its cache and sets the variable).

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha1"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
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

// ocrRegistry stands in for the npm registry: @opencode-ai/plugin, one
// version, whose package holds only its package.json.
type ocrRegistry struct {
	base string // the server's URL
	tgz  []byte
}

func newOCRRegistry(t *testing.T) *ocrRegistry {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	pkg := []byte(`{"name": "@opencode-ai/plugin", "version": "1.18.33", "main": "index.js"}` + "\n")
	index := []byte("export {}\n")
	for _, f := range []struct {
		name string
		data []byte
	}{{"package/package.json", pkg}, {"package/index.js", index}} {
		if err := tw.WriteHeader(&tar.Header{Name: f.name, Mode: 0o644, Size: int64(len(f.data)), ModTime: time.Unix(499162500, 0)}); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write(f.data); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
	return &ocrRegistry{tgz: buf.Bytes()}
}

func (g *ocrRegistry) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case "/npm/@opencode-ai/plugin":
		sum1 := sha1.Sum(g.tgz)
		sum512 := sha512.Sum512(g.tgz)
		v := map[string]any{"name": "@opencode-ai/plugin", "version": "1.18.33", "main": "index.js",
			"dist": map[string]any{"tarball": g.base + "/npm/plugin-1.18.33.tgz", "shasum": hex.EncodeToString(sum1[:]),
				"integrity": "sha512-" + base64.StdEncoding.EncodeToString(sum512[:])}}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"name": "@opencode-ai/plugin",
			"dist-tags": map[string]string{"latest": "1.18.33"}, "versions": map[string]any{"1.18.33": v}})
	case "/npm/plugin-1.18.33.tgz":
		w.Header().Set("Content-Type", "application/octet-stream")
		_, _ = w.Write(g.tgz)
	default:
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		_, _ = fmt.Fprintf(w, `{"error":"not found"}`)
	}
}

// ocrModel stands in for the Anthropic Messages API, which OpenCode
// reaches through its bundled @ai-sdk/anthropic: asked with ocrPrompt
// and offered the write tool, it creates hello.txt; given the tool's
// result, it ends the turn; anything else gets a short text. It keeps
// every request body.
type ocrModel struct {
	t        testing.TB
	file     string
	mu       sync.Mutex
	requests []string
}

func (m *ocrModel) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	if r.Method != http.MethodPost || r.URL.Path != "/v1/messages" {
		m.t.Logf("stand-in: unknown request %s %s (%d bytes): answered 404", r.Method, r.URL, len(body))
		w.WriteHeader(http.StatusNotFound)
		_, _ = io.WriteString(w, `{"type":"error","error":{"type":"not_found_error","message":"not found"}}`)
		return
	}
	m.mu.Lock()
	m.requests = append(m.requests, string(body))
	m.mu.Unlock()
	var req claudeRealRequest
	_ = json.Unmarshal(body, &req)
	hasWrite := false
	for _, tool := range req.Tools {
		hasWrite = hasWrite || tool.Name == "write"
	}
	last := ""
	if n := len(req.Messages); n > 0 {
		last = string(req.Messages[n-1].Content)
	}
	start := map[string]any{"type": "text", "text": ""}
	delta := map[string]any{"type": "text_delta", "text": "Done."}
	stop := "end_turn"
	switch {
	case strings.Contains(last, `"tool_result"`):
		delta["text"] = "I created hello.txt."
	case hasWrite && strings.Contains(last, ocrPrompt):
		input, _ := json.Marshal(map[string]string{"filePath": m.file, "content": "hello, world\n"})
		start = map[string]any{"type": "tool_use", "id": "toolu_01", "name": "write", "input": map[string]any{}}
		delta = map[string]any{"type": "input_json_delta", "partial_json": string(input)}
		stop = "tool_use"
	}
	w.Header().Set("Content-Type", "text/event-stream")
	event := func(name string, data any) {
		b, _ := json.Marshal(data)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", name, b)
	}
	event("message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": "msg_01", "type": "message", "role": "assistant", "model": req.Model, "content": []any{},
		"stop_reason": nil, "stop_sequence": nil, "usage": map[string]int{"input_tokens": 10, "output_tokens": 1}}})
	event("content_block_start", map[string]any{"type": "content_block_start", "index": 0, "content_block": start})
	event("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0, "delta": delta})
	event("content_block_stop", map[string]any{"type": "content_block_stop", "index": 0})
	event("message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": stop, "stop_sequence": nil},
		"usage": map[string]int{"output_tokens": 5}})
	event("message_stop", map[string]any{"type": "message_stop"})
}

// received returns the request bodies received so far.
func (m *ocrModel) received() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]string(nil), m.requests...)
}

// ocrOpenCode finds the opencode program or skips the test.
func ocrOpenCode(t *testing.T) string {
	return realClient(t, "OpenCode", "TURNBACK_TEST_OPENCODE", "opencode", "opencode-ai")
}

// ocrPrompt is the prompt of the scripted turn.
const ocrPrompt = "Create hello.txt saying hello"

// ocrSetup prepares a project folder with an opencode.json that uses the
// stand-in, runs "turnback init --opencode" there (turnback not on PATH:
// the plugin runs the test's binary by its path), and starts the
// stand-in; it returns the folder, the model and the server's URL.
func ocrSetup(t *testing.T) (*cliEnv, *ocrModel, string) {
	t.Helper()
	e := newHookEnv(t)
	e.extra = []string{"PATH=/usr/bin:/bin"}
	model := &ocrModel{t: t, file: e.path("hello.txt")}
	reg := newOCRRegistry(t)
	mux := http.NewServeMux()
	mux.Handle("/npm/", reg)
	mux.Handle("/", model)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + ln.Addr().String()
	reg.base = base
	srv := &http.Server{Handler: mux}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })

	e.write("README.md", "# my project\n")
	e.write("opencode.json", `{
  "$schema": "https://opencode.ai/config.json",
  "provider": {
    "standin": {
      "npm": "@ai-sdk/anthropic",
      "name": "Stand-in",
      "options": {"baseURL": "`+base+`/v1", "apiKey": "dummy"},
      "models": {"stand-in": {"name": "Stand-in", "tool_call": true}}
    }
  },
  "model": "standin/stand-in",
  "small_model": "standin/stand-in",
  "autoupdate": false,
  "share": "disabled",
  "permission": {"edit": "allow", "bash": "allow"}
}
`)
	r := e.ok("init", "--opencode")
	if !strings.Contains(r.stdout, "added turnback hooks for opencode") || !strings.Contains(r.stdout, "/tb-undo") {
		t.Fatalf("init --opencode:\n%s", r)
	}
	return e, model, base
}

// ocrRun runs "opencode run ARGS" in the project folder of e and fails
// the test unless it exits 0 and the plugin wrote nothing on stderr.
func ocrRun(t *testing.T, e *cliEnv, oc, base string, args ...string) {
	t.Helper()
	if stderr := ocrRunStderr(t, e, oc, base, args...); strings.Contains(stderr, "turnback") {
		t.Errorf("the plugin wrote on stderr:\n%s", stderr)
	}
}

// ocrRunStderr runs "opencode run ARGS" in the project folder of e,
// fails the test unless it exits 0, and returns its stderr.
func ocrRunStderr(t *testing.T, e *cliEnv, oc, base string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, oc, append([]string{"run"}, args...)...)
	cmd.Dir = e.dir
	// OpenCode takes its folder from $PWD, as a shell sets it.
	cmd.Env = append(e.environ(), "PWD="+e.dir, "XDG_CONFIG_HOME="+e.home+"/.config", "XDG_CACHE_HOME="+e.home+"/.cache",
		"XDG_STATE_HOME="+e.home+"/.local/state", "OPENCODE_DISABLE_MODELS_FETCH=1", "OPENCODE_DISABLE_AUTOUPDATE=1",
		"OPENCODE_DISABLE_SHARE=1", "OPENCODE_DISABLE_LSP_DOWNLOAD=1", "npm_config_registry="+base+"/npm/")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	begin := time.Now()
	err := cmd.Run()
	t.Logf("opencode run %q: %v in %v\nstdout:\n%s\nstderr:\n%s", args, err, time.Since(begin).Round(time.Millisecond), stdout.String(), stderr.String())
	if err != nil {
		logs, _ := filepath.Glob(filepath.Join(e.xdg, "opencode", "log", "*.log"))
		for _, l := range logs {
			data, _ := os.ReadFile(l)
			t.Logf("%s:\n%s", l, data)
		}
		t.Fatalf("opencode run %q failed: %v", args, err)
	}
	return stderr.String()
}

// ocrTurn runs the scripted turn, which creates hello.txt, and checks
// what the plugin recorded: one closed turn named by the prompt with
// hello.txt added and nothing of what OpenCode wrote into .opencode/.
// It returns the conversation's session.
func ocrTurn(t *testing.T, e *cliEnv, oc, base string) string {
	t.Helper()
	ocrRun(t, e, oc, base, strings.Fields(ocrPrompt)...)
	if got := string(e.read("hello.txt")); got != "hello, world\n" {
		t.Fatalf("hello.txt = %q", got)
	}
	if _, err := os.Stat(e.path(".opencode/package.json")); err != nil {
		t.Errorf("OpenCode did not install its plugin package from the stand-in: %v", err)
	}
	doc := e.log("")
	oneEndedTurn(t, doc, ocrPrompt, 1, 0, 0)
	if !strings.HasPrefix(doc.Session, "ses_") {
		t.Errorf("the turn is in session %q; want OpenCode's", doc.Session)
	}
	if s := allHookLogs(t, e.storeRoot()); s != "" {
		t.Errorf("hook.log:\n%s", s)
	}
	return doc.Session
}

// ocrAfter returns the requests the model received after the first
// before, and whether one of them holds every one of want.
func ocrAfter(m *ocrModel, before int, want ...string) ([]string, bool) {
	reqs := m.received()[before:]
	for _, body := range reqs {
		all := true
		for _, w := range want {
			all = all && strings.Contains(body, w)
		}
		if all {
			return reqs, true
		}
	}
	return reqs, false
}

// TestOpenCodeRealTurn: a turn of the real OpenCode, whose write tool
// creates hello.txt, is recorded by the plugin as one closed turn named
// by the prompt, in OpenCode's session; "turnback undo" without
// --session finds it and takes it back.
func TestOpenCodeRealTurn(t *testing.T) {
	t.Parallel()
	oc := ocrOpenCode(t)
	e, _, base := ocrSetup(t)
	ocrTurn(t, e, oc, base)
	e.ok("undo")
	realTurnGone(t, e, "turnback undo")
}

// TestOpenCodeRealSlashUndo: in the same conversation (--session),
// /tb-undo reverts the turn, makes no turn of its own, and the model's
// request that follows carries turnback's report. After "turnback redo"
// and an edit of the user's, /tb-undo keeps the edit and the model's
// request carries the conflict and the next step as OpenCode's command.
// The next message tells the model, once, what undo and redo changed.
func TestOpenCodeRealSlashUndo(t *testing.T) {
	t.Parallel()
	oc := ocrOpenCode(t)
	e, model, base := ocrSetup(t)
	sid := ocrTurn(t, e, oc, base)

	before := len(model.received())
	ocrRun(t, e, oc, base, "--session", sid, "--command", "tb-undo")
	realTurnGone(t, e, "/tb-undo")
	if doc := e.log(sid); len(doc.Turns) != 1 || !doc.Turns[0].Undone {
		t.Errorf("want the one turn, undone, and none for /tb-undo: %+v", doc)
	}
	if s := allHookLogs(t, e.storeRoot()); s != "" {
		t.Errorf("hook.log after /tb-undo:\n%s", s)
	}
	if reqs, ok := ocrAfter(model, before, `turnback undo (/tb-undo), exit code 0:\nundid 1 turn`, "D hello.txt", "/tb-redo puts the files back"); !ok {
		t.Errorf("no request after /tb-undo carries turnback's report; %d requests:\n%s", len(reqs), strings.Join(reqs, "\n---\n"))
	}

	e.ok("redo")
	e.write("hello.txt", "my edit\n")
	before = len(model.received())
	ocrRun(t, e, oc, base, "--session", sid, "--command", "tb-undo")
	if got := string(e.read("hello.txt")); got != "my edit\n" {
		t.Errorf("/tb-undo over the user's edit: hello.txt = %q", got)
	}
	if reqs, ok := ocrAfter(model, before, "exit code 3", "hello.txt: modified since", "/tb-undo --force reverts them anyway"); !ok {
		t.Errorf("no request after the conflicting /tb-undo carries the conflict; %d requests:\n%s", len(reqs), strings.Join(reqs, "\n---\n"))
	}

	before = len(model.received())
	ocrRun(t, e, oc, base, "--session", sid, "What", "changed?")
	tell := `turnback: since the last prompt the user reverted file changes with turnback:\n- undid turn 1: hello.txt\n- redid turn 1: hello.txt\n`
	if reqs, ok := ocrAfter(model, before, tell); !ok {
		t.Errorf("no request of the next message tells the model of the undo and redo; %d requests:\n%s", len(reqs), strings.Join(reqs, "\n---\n"))
	}
	before = len(model.received())
	ocrRun(t, e, oc, base, "--session", sid, "Anything", "else?")
	if reqs, _ := ocrAfter(model, before); len(reqs) == 0 || strings.Count(reqs[len(reqs)-1], "since the last prompt the user reverted") != 1 {
		t.Errorf("the model is told again, or not in the history: %d requests", len(reqs))
	}
}

// TestOpenCodeRealNoTurnback: when the plugin cannot run turnback (here:
// "turnback", not on PATH), OpenCode goes on: the turn runs, and the
// plugin says so in one line on stderr, once.
func TestOpenCodeRealNoTurnback(t *testing.T) {
	t.Parallel()
	oc := ocrOpenCode(t)
	e, _, base := ocrSetup(t)
	js := string(e.read(".opencode/plugins/turnback.js"))
	e.write(".opencode/plugins/turnback.js", strings.Replace(js, "const BIN = \""+e.bin+"\"", "const BIN = \"turnback\"", 1))
	stderr := ocrRunStderr(t, e, oc, base, strings.Fields(ocrPrompt)...)
	if got := string(e.read("hello.txt")); got != "hello, world\n" {
		t.Errorf("hello.txt = %q", got)
	}
	const notice = "turnback: cannot run turnback (ENOENT): turns are not recorded; install turnback or remove the plugin turnback.js\n"
	if strings.Count(stderr, "turnback:") != 1 || !strings.Contains(stderr, notice) {
		t.Errorf("stderr should hold %q once:\n%s", notice, stderr)
	}
}
