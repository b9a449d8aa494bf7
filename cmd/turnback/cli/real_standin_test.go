package cli

// The stand-ins for the model APIs that the real agent clients talk to
// (real_agents_test.go). Each one scripts the model: asked with
// realPrompt and offered the agent's write tool, it creates hello.txt;
// given the tool's result, it ends the turn with a short text; anything
// else gets a short text. Each keeps every request body it answered.

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha1"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// realModel is a stand-in model API.
type realModel interface {
	http.Handler
	received() []string
}

// standinLog keeps the request bodies a stand-in answered.
type standinLog struct {
	mu       sync.Mutex
	requests []string
}

// record keeps body and returns how many bodies are kept now.
func (l *standinLog) record(body []byte) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.requests = append(l.requests, string(body))
	return len(l.requests)
}

// received returns the bodies kept so far.
func (l *standinLog) received() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.requests...)
}

// writeTool names an agent's tool that creates a file and its two
// arguments: the path and the content.
type writeTool struct{ name, path, content string }

// anthropicModel stands in for the Anthropic Messages API (Claude Code,
// and OpenCode through its bundled @ai-sdk/anthropic).
type anthropicModel struct {
	standinLog
	t    testing.TB
	file string // the absolute path the tool creates
	tool writeTool
}

// standinMessage is one message of a request to a stand-in model.
type standinMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

// anthropicRequest is the part of a Messages API request the stand-in reads.
type anthropicRequest struct {
	Model    string           `json:"model"`
	Stream   bool             `json:"stream"`
	Messages []standinMessage `json:"messages"`
	Tools    []struct {
		Name string `json:"name"`
	} `json:"tools"`
}

// anthropicBlock is one content block of an answer.
type anthropicBlock struct {
	Type  string         `json:"type"`
	Text  string         `json:"text,omitempty"`
	ID    string         `json:"id,omitempty"`
	Name  string         `json:"name,omitempty"`
	Input map[string]any `json:"input,omitempty"`
}

func (m *anthropicModel) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	path := r.URL.Path
	switch {
	case r.Method == http.MethodPost && path == "/v1/messages":
		m.record(body)
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
// text; a conversation offering the write tool that holds realPrompt but
// no tool result yet gets the write; anything else (a later prompt, a
// title, a summary) gets a short text.
func (m *anthropicModel) messages(w http.ResponseWriter, body []byte) {
	var req anthropicRequest
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, "bad json", http.StatusBadRequest)
		return
	}
	hasWrite := false
	for _, tool := range req.Tools {
		hasWrite = hasWrite || tool.Name == m.tool.name
	}
	last := ""
	if n := len(req.Messages); n > 0 {
		last = string(req.Messages[n-1].Content)
	}
	block, stop := anthropicBlock{Type: "text", Text: "Hello"}, "end_turn"
	switch {
	case strings.Contains(last, `"tool_result"`):
		block.Text = "I created hello.txt."
	case hasWrite && bytes.Contains(body, []byte(realPrompt)) && !bytes.Contains(body, []byte(`"tool_result"`)):
		block = anthropicBlock{Type: "tool_use", ID: "toolu_01", Name: m.tool.name,
			Input: map[string]any{m.tool.path: m.file, m.tool.content: "hello, world\n"}}
		stop = "tool_use"
	case hasWrite:
		block.Text = "Done."
	}
	if !req.Stream {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{
			"id": "msg_01", "type": "message", "role": "assistant", "model": req.Model,
			"content": []anthropicBlock{block}, "stop_reason": stop, "stop_sequence": nil,
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

// geminiModel stands in for the Gemini API (generateContent,
// streamGenerateContent); it keeps the bodies of streamGenerateContent.
type geminiModel struct {
	standinLog
	t    testing.TB
	file string // the absolute path write_file creates
}

// geminiPart is one part of a candidate's content.
type geminiPart map[string]any

func (m *geminiModel) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	path := r.URL.Path
	switch {
	case r.Method == http.MethodPost && strings.HasSuffix(path, ":streamGenerateContent"):
		m.record(body)
		w.Header().Set("Content-Type", "text/event-stream")
		b, _ := json.Marshal(geminiResponse(m.turn(body)))
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
		_ = json.NewEncoder(w).Encode(geminiResponse(geminiPart{"text": text}))
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
func (m *geminiModel) turn(body []byte) geminiPart {
	var req struct {
		Contents []struct {
			Role  string            `json:"role"`
			Parts []json.RawMessage `json:"parts"`
		} `json:"contents"`
	}
	if err := json.Unmarshal(body, &req); err != nil || len(req.Contents) == 0 {
		return geminiPart{"text": "Hello."}
	}
	last := req.Contents[len(req.Contents)-1]
	lastText := ""
	for _, p := range last.Parts {
		lastText += string(p)
	}
	switch {
	case strings.Contains(lastText, `"functionResponse"`):
		return geminiPart{"text": "I created hello.txt."}
	case strings.Contains(lastText, realPrompt) && bytes.Contains(body, []byte(`"write_file"`)):
		return geminiPart{"functionCall": map[string]any{"name": "write_file",
			"args": map[string]any{"file_path": m.file, "content": "hello, world\n"}}}
	}
	return geminiPart{"text": "Done."}
}

// geminiResponse is a GenerateContentResponse with one candidate holding part.
func geminiResponse(part geminiPart) map[string]any {
	return map[string]any{
		"candidates": []any{map[string]any{
			"content":      map[string]any{"role": "model", "parts": []any{part}},
			"finishReason": "STOP", "index": 0,
		}},
		"usageMetadata": map[string]int{"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15},
		"modelVersion":  "gemini-2.5-flash",
	}
}

// responsesModel stands in for the OpenAI Responses API (Codex CLI),
// whose model creates hello.txt with exec_command.
type responsesModel struct {
	standinLog
	t testing.TB
}

func (m *responsesModel) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	if !openAIPost(m.t, w, r, body, "/v1/responses") {
		return
	}
	n := m.record(body)
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
func (m *responsesModel) item(body []byte, n int) map[string]any {
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
		case last.Role == "user" && strings.Contains(prompt, realPrompt) && bytes.Contains(body, []byte(`"exec_command"`)):
			args, _ := json.Marshal(map[string]string{"cmd": `printf 'hello, world\n' > hello.txt`})
			return map[string]any{"type": "function_call", "id": fmt.Sprintf("fc_%d", n), "call_id": fmt.Sprintf("call_%d", n),
				"name": "exec_command", "arguments": string(args)}
		}
	}
	return map[string]any{"type": "message", "role": "assistant", "id": fmt.Sprintf("msg_%d", n),
		"content": []any{map[string]any{"type": "output_text", "text": text}}}
}

// openAIPost says whether r is a POST of path; any other request is
// logged and answered 404 as OpenAI's APIs answer it.
func openAIPost(t testing.TB, w http.ResponseWriter, r *http.Request, body []byte, path string) bool {
	if r.Method == http.MethodPost && r.URL.Path == path {
		return true
	}
	t.Logf("stand-in: unknown request %s %s (%d bytes): answered 404", r.Method, r.URL, len(body))
	w.WriteHeader(http.StatusNotFound)
	_, _ = io.WriteString(w, `{"error":{"message":"not found","type":"invalid_request_error"}}`)
	return false
}

// chatRequest is what the stand-ins read of a Chat Completions request.
type chatRequest struct {
	Stream   bool             `json:"stream"`
	Messages []standinMessage `json:"messages"`
	Tools    []struct {
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	} `json:"tools"`
}

// chatModel stands in for an OpenAI-compatible Chat Completions API
// (Qwen Code, and Copilot CLI with a custom provider).
type chatModel struct {
	standinLog
	t    testing.TB
	file string // the absolute path the tool creates
	tool writeTool
}

func (m *chatModel) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	if !openAIPost(m.t, w, r, body, "/v1/chat/completions") {
		return
	}
	n := m.record(body)
	var req chatRequest
	_ = json.Unmarshal(body, &req)
	hasWrite := false
	for _, tool := range req.Tools {
		hasWrite = hasWrite || tool.Function.Name == m.tool.name
	}
	last := ""
	if k := len(req.Messages); k > 0 {
		last = req.Messages[k-1].Role + string(req.Messages[k-1].Content)
	}
	delta, finish := map[string]any{"role": "assistant", "content": "Done."}, "stop"
	switch {
	case strings.HasPrefix(last, "tool"):
		delta["content"] = "I created hello.txt."
	case strings.HasPrefix(last, "user") && strings.Contains(last, realPrompt) && hasWrite:
		args, _ := json.Marshal(map[string]string{m.tool.path: m.file, m.tool.content: "hello, world\n"})
		delta = map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{map[string]any{
			"index": 0, "id": fmt.Sprintf("call_%d", n), "type": "function",
			"function": map[string]any{"name": m.tool.name, "arguments": string(args)}}}}
		finish = "tool_calls"
	}
	if d := skillStep(body, n); d != nil { // Copilot CLI's skills
		delta, finish = d, "tool_calls"
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

// npmRegistry stands in for the npm registry, from which OpenCode
// installs @opencode-ai/plugin as it starts: one version, whose package
// holds only its package.json and an empty module.
type npmRegistry struct {
	base string // the server's URL
	tgz  []byte
}

func newNPMRegistry(t testing.TB) *npmRegistry {
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
	return &npmRegistry{tgz: buf.Bytes()}
}

func (g *npmRegistry) ServeHTTP(w http.ResponseWriter, r *http.Request) {
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
