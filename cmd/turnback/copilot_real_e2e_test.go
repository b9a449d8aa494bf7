package main

// An end-to-end test with the real GitHub Copilot CLI: copilot -p runs
// one turn in a folder prepared with "turnback init --copilot", offline
// (COPILOT_OFFLINE) with a custom model provider (BYOK,
// COPILOT_PROVIDER_BASE_URL) that is the Chat Completions stand-in of
// qwen_real_e2e_test.go, here creating hello.txt with Copilot's create
// tool. Copilot CLI runs the hooks of .github/hooks/turnback.json as it
// would for a user; it fires both spellings of each event
// (userPromptSubmitted and UserPromptSubmit, agentStop and Stop) for one
// prompt, and the two hooks still make one turn.
//
// The test skips unless it finds copilot: TURNBACK_TEST_COPILOT names
// the program, else copilot on PATH (.ci/run installs the npm package
// @github/copilot into its cache and sets the variable).

import (
	"bytes"
	"context"
	"net"
	"net/http"
	"os/exec"
	"testing"
	"time"
)

// copilotRealProgram finds the copilot program or skips the test.
func copilotRealProgram(t *testing.T) string {
	return realClient(t, "GitHub Copilot CLI", "TURNBACK_TEST_COPILOT", "copilot", "@github/copilot")
}

// TestCopilotRealTurn: a turn of the real Copilot CLI, whose create tool
// makes hello.txt, is recorded by the hooks "turnback init --copilot"
// installed as one turn (of the two that its two spellings of the prompt
// event start, the first changed nothing) named by the prompt; "turnback
// undo" takes it back.
func TestCopilotRealTurn(t *testing.T) {
	t.Parallel()
	copilot := copilotRealProgram(t)
	e := newHookEnv(t)
	e.write("README.md", "# my project\n")
	e.ok("init", "--copilot")
	model := &qwenRealModel{t: t, file: e.path("hello.txt"), tool: [3]string{"create", "path", "file_text"}}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: model}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, copilot, "-p", qwenRealPrompt)
	cmd.Dir = e.dir
	// COPILOT_ALLOW_ALL=true approves the tools and trusts the folder,
	// without which Copilot CLI loads none of its hooks.
	cmd.Env = append(e.environ(), "COPILOT_OFFLINE=true", "COPILOT_PROVIDER_BASE_URL=http://"+ln.Addr().String()+"/v1",
		"COPILOT_PROVIDER_API_KEY=dummy", "COPILOT_MODEL=gpt-4.1", "COPILOT_ALLOW_ALL=true", "COPILOT_AUTO_UPDATE=false",
		"COPILOT_GITHUB_TOKEN=", "GH_TOKEN=", "GITHUB_TOKEN=")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	begin := time.Now()
	err = cmd.Run()
	t.Logf("copilot -p %q: %v in %v\nstdout:\n%s\nstderr:\n%s", qwenRealPrompt, err, time.Since(begin).Round(time.Millisecond), stdout.String(), stderr.String())
	if err != nil {
		t.Fatalf("copilot failed: %v", err)
	}
	if got := string(e.read("hello.txt")); got != "hello, world\n" {
		t.Fatalf("hello.txt = %q", got)
	}
	doc := e.log("")
	if len(doc.Turns) != 1 || doc.Turns[0].Message != qwenRealPrompt || doc.Turns[0].Open || doc.Turns[0].Added != 1 {
		t.Fatalf("want one closed turn adding hello.txt, got %+v", doc)
	}
	if s := allHookLogs(t, e.storeRoot()); s != "" {
		t.Errorf("hook.log:\n%s", s)
	}
	e.ok("undo")
	realTurnGone(t, e, "turnback undo")
}
