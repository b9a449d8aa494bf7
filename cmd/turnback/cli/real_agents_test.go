package cli

// The real agent clients, each run against a stand-in for its model's
// API on 127.0.0.1 (real_standin_test.go) in a folder prepared with
// "turnback init --AGENT". The client runs its hooks or plugin as it
// would for a user, so its turns are recorded by turnback itself.
//
// realAgents is the one table of clients; realStart and realSession.run
// are the one runner. A test skips a client it does not find:
// TURNBACK_TEST_<NAME> names the program, else it is looked up on PATH.
// .ci/run installs each npm package, pinned, into
// ~/.cache/turnback-ci/<prog> and sets the variable.

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/turnback/turnback/internal/testtier"
)

// realPrompt is the prompt of the scripted turn, which creates hello.txt.
const realPrompt = "Create hello.txt saying hello"

// geminiSession is the conversation's id, given to Gemini CLI
// (--session-id) so that a test can resume it.
const geminiSession = "6a0f3c2e-1b4d-4e8a-9c7f-2d5e8b1a0c93"

// realAgent is one real client: how to find it, its stand-in, how to
// prepare its folder, how to run a prompt, and what to check.
type realAgent struct {
	key      string // the subtest's name and init's flag, --key
	name     string // as its makers name it
	envVar   string // names the program
	prog     string // the program's name on PATH
	pkg      string // the npm package that brings it
	settings string // a project settings file init edits: testdata/init/<key>.json is put there first
	// user is a settings file under HOME, written after init, and its
	// content.
	user    func(e *cliEnv, base string) (string, string)
	model   func(t testing.TB, file string) realModel
	npm     bool // the stand-in also serves the npm registry (under /npm/)
	timeout time.Duration
	// prepare writes what the client needs before init; base is the
	// stand-in's URL.
	prepare func(t *testing.T, e *cliEnv, base string)
	// env is the client's environment beyond the user's.
	env func(e *cliEnv, base string) []string
	// args are the client's arguments for a prompt; flags come first
	// ("" as prompt: none).
	args func(prompt string, flags []string) []string
	// first is given with the first prompt; resume continues the
	// conversation sid (nil: every prompt starts a new one).
	first  []string
	resume func(sid string) []string
	// check looks at a run's output: a settings file the client skipped.
	check func(t *testing.T, stdout, stderr string)
	// turn checks what the scripted turn recorded beyond the turn itself.
	turn func(t *testing.T, s *realSession, doc hookLogDoc)
	// failLogs is a glob under XDG_DATA_HOME of logs shown when a run fails.
	failLogs string
	// cmdPrefix begins the names of turnback's commands in the client
	// ("tb-": Copilot's skills /tb-undo, ...).
	cmdPrefix string
}

// realAgents is every real client the tests run.
var realAgents = []*realAgent{claudeAgent, geminiAgent, codexAgent, qwenAgent, copilotAgent, opencodeAgent}

var claudeAgent = &realAgent{
	key: "claude", name: "Claude Code", envVar: "TURNBACK_TEST_CLAUDE", prog: "claude", pkg: "@anthropic-ai/claude-code",
	settings: ".claude/settings.json",
	model: func(t testing.TB, file string) realModel {
		return &anthropicModel{t: t, file: file, tool: writeTool{"Write", "file_path", "content"}}
	},
	env: func(e *cliEnv, base string) []string {
		return []string{"ANTHROPIC_BASE_URL=" + base, "ANTHROPIC_API_KEY=dummy", "ANTHROPIC_AUTH_TOKEN=", "CLAUDE_CODE_USE_BEDROCK=", "CLAUDE_CODE_USE_VERTEX=",
			"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_AUTOUPDATER=1", "DISABLE_TELEMETRY=1",
			"DISABLE_ERROR_REPORTING=1", "CLAUDE_CONFIG_DIR=" + filepath.Join(e.home, ".claude")}
	},
	args: func(prompt string, flags []string) []string {
		return append([]string{"-p", prompt, "--permission-mode", "acceptEdits"}, flags...)
	},
	resume: func(sid string) []string { return []string{"--resume", sid} },
	// Claude Code checks settings files against its settings schema as
	// it loads them and names the entries it skips.
	check: func(t *testing.T, stdout, stderr string) {
		if out := stdout + stderr; strings.Contains(out, "settings entries were skipped") {
			t.Errorf("Claude Code skipped settings entries:\n%s", out)
		}
	},
}

// geminiAgent: Gemini CLI with the API-key auth chosen in the user
// settings. It checks every settings file against its schema as it loads
// it and reports a file that does not fit ("Invalid configuration in
// <file>") on stderr: that fails the test, so the file init wrote is
// checked against Gemini CLI's own schema on every run.
var geminiAgent = &realAgent{
	key: "gemini", name: "Gemini CLI", envVar: "TURNBACK_TEST_GEMINI", prog: "gemini", pkg: "@google/gemini-cli",
	settings: ".gemini/settings.json",
	user: fixedUser(".gemini/settings.json", `{
  "security": {"auth": {"selectedType": "gemini-api-key"}},
  "general": {"disableAutoUpdate": true, "disableUpdateNag": true},
  "privacy": {"usageStatisticsEnabled": false},
  "telemetry": {"enabled": false}
}
`),
	model: func(t testing.TB, file string) realModel { return &geminiModel{t: t, file: file} },
	env: func(e *cliEnv, base string) []string {
		return []string{"GEMINI_API_KEY=dummy", "GOOGLE_GEMINI_BASE_URL=" + base,
			"GOOGLE_API_KEY=", "GOOGLE_GENAI_USE_VERTEXAI=", "GOOGLE_GENAI_USE_GCA=", "GOOGLE_CLOUD_PROJECT=",
			"GEMINI_CLI_TRUST_WORKSPACE=true", "GEMINI_CLI_NO_RELAUNCH=true", "NO_BROWSER=1"}
	},
	args: func(prompt string, flags []string) []string {
		return append([]string{"-p", prompt, "--approval-mode", "yolo", "-m", "gemini-2.5-flash"}, flags...)
	},
	first:  []string{"--session-id", geminiSession},
	resume: func(sid string) []string { return []string{"--resume", sid} },
	check: func(t *testing.T, _, stderr string) {
		if strings.Contains(stderr, "Invalid configuration") {
			t.Errorf("Gemini CLI finds a settings file invalid:\n%s", stderr)
		}
	},
	turn: func(t *testing.T, _ *realSession, doc hookLogDoc) {
		if doc.Session != geminiSession {
			t.Fatalf("the turn is in session %q, want %q", doc.Session, geminiSession)
		}
	},
}

// codexAgent: codex exec with a CODEX_HOME config.toml whose model
// provider is the stand-in. Codex runs a project's hooks only in a
// trusted project (the config.toml trusts it) and only hooks the user
// trusted in its /hooks screen, which codex exec cannot show:
// --dangerously-bypass-hook-trust stands for that review; the hooks that
// run are exactly those init wrote.
var codexAgent = &realAgent{
	key: "codex", name: "Codex CLI", envVar: "TURNBACK_TEST_CODEX", prog: "codex", pkg: "@openai/codex",
	model: func(t testing.TB, _ string) realModel { return &responsesModel{t: t} },
	user: func(e *cliEnv, base string) (string, string) {
		return ".codex/config.toml", fmt.Sprintf(`model = "gpt-5-codex"
model_provider = "standin"

[model_providers.standin]
name = "stand-in"
base_url = "%s/v1"
env_key = "STANDIN_API_KEY"
wire_api = "responses"

[projects.%q]
trust_level = "trusted"
`, base, e.dir)
	},
	env: func(e *cliEnv, _ string) []string {
		return []string{"CODEX_HOME=" + filepath.Join(e.home, ".codex"), "STANDIN_API_KEY=dummy", "OPENAI_API_KEY=", "OPENAI_BASE_URL=", "RUST_LOG="}
	},
	args: func(prompt string, flags []string) []string {
		return append(append([]string{"exec", "--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox", "--dangerously-bypass-hook-trust"}, flags...), prompt)
	},
	resume: func(sid string) []string { return []string{"resume", sid} },
	// Codex reads hooks.json into its hook config types (the source of
	// its published schemas) and warns when a file does not fit them.
	check: func(t *testing.T, _, stderr string) {
		if strings.Contains(stderr, "failed to parse hooks config") {
			t.Errorf("Codex could not read a hooks file:\n%s", stderr)
		}
	},
}

// qwenAgent: Qwen Code with the openai auth chosen in the user settings.
// That the tool result going back to the model is not a turn of its own
// is checked here with the real client. qwen -p starts a new
// conversation each time.
var qwenAgent = &realAgent{
	key: "qwen", name: "Qwen Code", envVar: "TURNBACK_TEST_QWEN", prog: "qwen", pkg: "@qwen-code/qwen-code",
	user: fixedUser(".qwen/settings.json", `{
  "security": {"auth": {"selectedType": "openai"}},
  "general": {"disableAutoUpdate": true},
  "privacy": {"usageStatisticsEnabled": false},
  "telemetry": {"enabled": false}
}
`),
	model: func(t testing.TB, file string) realModel {
		return &chatModel{t: t, file: file, tool: writeTool{"write_file", "file_path", "content"}}
	},
	env: func(_ *cliEnv, base string) []string {
		return []string{"OPENAI_API_KEY=dummy", "OPENAI_BASE_URL=" + base + "/v1", "OPENAI_MODEL=stand-in",
			"QWEN_CODE_SUPPRESS_YOLO_WARNING=1", "DASHSCOPE_API_KEY="}
	},
	args: func(prompt string, flags []string) []string {
		return append([]string{"-p", prompt, "--approval-mode", "yolo"}, flags...)
	},
	turn: func(t *testing.T, s *realSession, _ hookLogDoc) {
		if n := len(s.model.received()); n < 2 {
			t.Errorf("the model was asked %d times; want the prompt and the tool result", n)
		}
	},
}

// copilotAgent: Copilot CLI offline (COPILOT_OFFLINE) with a custom model
// provider (BYOK) that is the Chat Completions stand-in, creating
// hello.txt with Copilot's create tool. It fires both spellings of each
// event (userPromptSubmitted and UserPromptSubmit, agentStop and Stop)
// for one prompt, and the two hooks still make one turn. turnback's
// commands are the skills /tb-undo, /tb-redo and /tb-turns.
var copilotAgent = &realAgent{
	key: "copilot", name: "GitHub Copilot CLI", envVar: "TURNBACK_TEST_COPILOT", prog: "copilot", pkg: "@github/copilot",
	model: func(t testing.TB, file string) realModel {
		return &chatModel{t: t, file: file, tool: writeTool{"create", "path", "file_text"}}
	},
	// COPILOT_ALLOW_ALL=true approves the tools and trusts the folder,
	// without which Copilot CLI loads none of its hooks.
	env: func(_ *cliEnv, base string) []string {
		return []string{"COPILOT_OFFLINE=true", "COPILOT_PROVIDER_BASE_URL=" + base + "/v1",
			"COPILOT_PROVIDER_API_KEY=dummy", "COPILOT_MODEL=gpt-4.1", "COPILOT_ALLOW_ALL=true", "COPILOT_AUTO_UPDATE=false",
			"COPILOT_GITHUB_TOKEN=", "GH_TOKEN=", "GITHUB_TOKEN="}
	},
	args:      func(prompt string, flags []string) []string { return append([]string{"-p", prompt}, flags...) },
	resume:    func(sid string) []string { return []string{"--resume=" + sid} },
	cmdPrefix: "tb-",
}

// opencodeAgent: "opencode run" with the stand-in named in the project's
// opencode.json as a provider with a base URL. The stand-in also serves
// the npm registry, from which OpenCode installs @opencode-ai/plugin into
// .opencode/ as it starts, so OpenCode writes its package.json, lock
// file, node_modules and .gitignore there as it does for a user, and the
// turn must not hold them. turnback is not on PATH: the plugin runs the
// test's binary by its path.
var opencodeAgent = &realAgent{
	key: "opencode", name: "OpenCode", envVar: "TURNBACK_TEST_OPENCODE", prog: "opencode", pkg: "opencode-ai",
	model: func(t testing.TB, file string) realModel {
		return &anthropicModel{t: t, file: file, tool: writeTool{"write", "filePath", "content"}}
	},
	npm:     true,
	timeout: 3 * time.Minute,
	prepare: func(t *testing.T, e *cliEnv, base string) {
		e.extra = []string{"PATH=/usr/bin:/bin"}
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
	},
	// OpenCode takes its folder from $PWD, as a shell sets it.
	env: func(e *cliEnv, base string) []string {
		return []string{"PWD=" + e.dir, "XDG_CONFIG_HOME=" + e.home + "/.config", "XDG_CACHE_HOME=" + e.home + "/.cache",
			"XDG_STATE_HOME=" + e.home + "/.local/state", "OPENCODE_DISABLE_MODELS_FETCH=1", "OPENCODE_DISABLE_AUTOUPDATE=1",
			"OPENCODE_DISABLE_SHARE=1", "OPENCODE_DISABLE_LSP_DOWNLOAD=1", "npm_config_registry=" + base + "/npm/"}
	},
	args: func(prompt string, flags []string) []string {
		return append(append([]string{"run"}, flags...), strings.Fields(prompt)...)
	},
	resume: func(sid string) []string { return []string{"--session", sid} },
	check: func(t *testing.T, _, stderr string) {
		if strings.Contains(stderr, "turnback") {
			t.Errorf("the plugin wrote on stderr:\n%s", stderr)
		}
	},
	turn: func(t *testing.T, s *realSession, doc hookLogDoc) {
		if _, err := os.Stat(s.e.path(".opencode/package.json")); err != nil {
			t.Errorf("OpenCode did not install its plugin package from the stand-in: %v", err)
		}
		if !strings.HasPrefix(doc.Session, "ses_") {
			t.Errorf("the turn is in session %q; want OpenCode's", doc.Session)
		}
	},
	failLogs: "opencode/log/*.log",
}

// fixedUser is a user settings file that does not depend on the folder.
func fixedUser(name, content string) func(*cliEnv, string) (string, string) {
	return func(*cliEnv, string) (string, string) { return name, content }
}

// program finds the client's program or skips the test.
func (a *realAgent) program(t *testing.T) string {
	t.Helper()
	testtier.Slow(t)
	if p := os.Getenv(a.envVar); p != "" {
		if _, err := os.Stat(p); err != nil {
			t.Skipf("%s=%s: %v", a.envVar, p, err)
		}
		return p
	}
	p, err := exec.LookPath(a.prog)
	if err != nil {
		t.Skipf("%s not found: set %s to the %s program or put %s on PATH (npm install %s)", a.name, a.envVar, a.prog, a.prog, a.pkg)
	}
	return p
}

// realSession is one client in its project folder with its stand-in.
type realSession struct {
	t     *testing.T
	a     *realAgent
	prog  string
	e     *cliEnv
	model realModel
	base  string // the stand-in's URL
}

// realStart finds the client (or skips), prepares a project folder
// holding README.md with "turnback init --KEY" run in it, and starts the
// stand-in. A project settings file starts as the one init's golden test
// edits (testdata/init/KEY.json: other hooks, permissions, comments).
func realStart(t *testing.T, a *realAgent) *realSession {
	t.Helper()
	s := &realSession{t: t, a: a, prog: a.program(t), e: newHookEnv(t)}
	e := s.e
	s.model = a.model(t, e.path("hello.txt"))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s.base = "http://" + ln.Addr().String()
	var h http.Handler = s.model
	if a.npm {
		reg := newNPMRegistry(t)
		reg.base = s.base
		mux := http.NewServeMux()
		mux.Handle("/npm/", reg)
		mux.Handle("/", s.model)
		h = mux
	}
	srv := &http.Server{Handler: h}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })

	e.write("README.md", "# my project\n")
	if a.settings != "" {
		settings, err := os.ReadFile(filepath.Join("..", "testdata", "init", a.key+".json"))
		if err != nil {
			t.Fatal(err)
		}
		e.write(a.settings, string(settings))
	}
	if a.prepare != nil {
		a.prepare(t, e, s.base)
	}
	r := e.ok("init", "--"+a.key)
	if a.key == "opencode" && (!strings.Contains(r.stdout, "added turnback hooks for opencode") || !strings.Contains(r.stdout, "/tb-undo")) {
		t.Fatalf("init --opencode:\n%s", r)
	}
	if a.user != nil {
		name, content := a.user(e, s.base)
		cliWriteFile(t, filepath.Join(e.home, filepath.FromSlash(name)), []byte(content))
	}
	return s
}

// run runs a prompt ("": none) with flags in the project folder, fails
// the test unless the client exits 0, checks its output and returns its
// stderr.
func (s *realSession) run(prompt string, flags ...string) string {
	s.t.Helper()
	stdout, stderr := s.runRaw(prompt, flags...)
	if s.a.check != nil {
		s.a.check(s.t, stdout, stderr)
	}
	return stderr
}

// runRaw is run without the check of the output.
func (s *realSession) runRaw(prompt string, flags ...string) (string, string) {
	t := s.t
	t.Helper()
	timeout := s.a.timeout
	if timeout == 0 {
		timeout = 2 * time.Minute
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	args := s.a.args(prompt, flags)
	cmd := exec.CommandContext(ctx, s.prog, args...)
	cmd.Dir = s.e.dir
	cmd.Env = append(s.e.environ(), s.a.env(s.e, s.base)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	begin := time.Now()
	err := cmd.Run()
	t.Logf("%s %q: %v in %v\nstdout:\n%s\nstderr:\n%s", s.a.prog, args, err, time.Since(begin).Round(time.Millisecond), stdout.String(), stderr.String())
	if err != nil {
		if s.a.failLogs != "" {
			logs, _ := filepath.Glob(filepath.Join(s.e.xdg, filepath.FromSlash(s.a.failLogs)))
			for _, l := range logs {
				data, _ := os.ReadFile(l)
				t.Logf("%s:\n%s", l, data)
			}
		}
		t.Fatalf("%s %q failed: %v", s.a.prog, args, err)
	}
	return stdout.String(), stderr.String()
}

// turn runs the scripted turn, which creates hello.txt, and checks what
// was recorded: one closed turn named by the prompt, hello.txt added,
// and no hook.log. It returns the conversation's session.
func (s *realSession) turn() string {
	t := s.t
	t.Helper()
	s.run(realPrompt, s.a.first...)
	if got := string(s.e.read("hello.txt")); got != "hello, world\n" {
		t.Fatalf("hello.txt = %q", got)
	}
	doc := s.e.log("")
	if s.a.key == "copilot" {
		// Of the two turns its two spellings of the prompt event start,
		// the first changed nothing.
		if len(doc.Turns) != 1 || doc.Turns[0].Message != realPrompt || doc.Turns[0].Open || doc.Turns[0].Added != 1 {
			t.Fatalf("want one closed turn adding hello.txt, got %+v", doc)
		}
	} else {
		oneEndedTurn(t, doc, realPrompt, 1, 0, 0)
	}
	if s.a.turn != nil {
		s.a.turn(t, s, doc)
	}
	s.noHookLog("")
	return doc.Session
}

// noHookLog fails the test if a hook wrote its log.
func (s *realSession) noHookLog(after string) {
	s.t.Helper()
	if l := allHookLogs(s.t, s.e.storeRoot()); l != "" {
		s.t.Errorf("hook.log%s:\n%s", after, l)
	}
}

// since returns the requests the model received after the first before.
func (s *realSession) since(before int) []string { return s.model.received()[before:] }

// gone fails the test unless hello.txt is gone and README.md as it was.
func (s *realSession) gone(after string) {
	s.t.Helper()
	if _, err := os.Stat(s.e.path("hello.txt")); !os.IsNotExist(err) {
		s.t.Fatalf("after %s, hello.txt: %v", after, err)
	}
	if got := string(s.e.read("README.md")); got != "# my project\n" {
		s.t.Errorf("after %s, README.md = %q", after, got)
	}
}

// realEach runs test for every client of agents as a parallel subtest,
// in parallel with the other tests.
func realEach(t *testing.T, agents []*realAgent, test func(t *testing.T, s *realSession)) {
	t.Parallel()
	for _, a := range agents {
		t.Run(a.key, func(t *testing.T) {
			t.Parallel()
			test(t, realStart(t, a))
		})
	}
}
