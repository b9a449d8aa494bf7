package cli

// The real agent CLIs read the MCP settings init --AGENT --mcp wrote:
// Claude Code and Gemini CLI start turnback mcp from them and connect
// to it (their "mcp list" health check), Codex lists it from a trusted
// project's .codex/config.toml. Each test skips when its CLI is not
// found (realAgent.program).

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// mcpRealList runs the agent's "mcp list" in the project folder of e with
// env added, and returns what it printed.
func mcpRealList(t *testing.T, e *cliEnv, prog string, env ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, prog, "mcp", "list")
	cmd.Dir, cmd.Env = e.dir, append(e.environ(), env...)
	out, err := cmd.CombinedOutput()
	t.Logf("%s mcp list: %v\n%s", filepath.Base(prog), err, out)
	if err != nil {
		t.Fatalf("%s mcp list: %v", prog, err)
	}
	return string(out)
}

// TestMCPRealClaude: Claude Code connects to the server .mcp.json names
// (approved in the user's settings, as the approval prompt would).
func TestMCPRealClaude(t *testing.T) {
	claude := claudeAgent.program(t)
	e := newHookEnv(t)
	e.putOnPath()
	e.write(".mcp.json", "{\n  \"mcpServers\": {}\n}\n")
	e.ok("init", "--claude", "--mcp")
	cliWriteFile(t, filepath.Join(e.home, ".claude", "settings.json"), []byte(`{"enabledMcpjsonServers": ["turnback"]}`))
	out := mcpRealList(t, e, claude, "CLAUDE_CONFIG_DIR="+filepath.Join(e.home, ".claude"), "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"DISABLE_AUTOUPDATER=1", "DISABLE_TELEMETRY=1", "DISABLE_ERROR_REPORTING=1", "ANTHROPIC_API_KEY=dummy")
	if !strings.Contains(out, "turnback: turnback mcp - ✔ Connected") {
		t.Errorf("Claude Code did not connect to turnback mcp:\n%s", out)
	}
}

// TestMCPRealGemini: Gemini CLI connects to the server
// .gemini/settings.json names (next to the hooks and another server).
func TestMCPRealGemini(t *testing.T) {
	gemini := geminiAgent.program(t)
	e := newHookEnv(t)
	e.putOnPath()
	e.write(".gemini/settings.json", "{\n  // the team's\n  \"mcpServers\": {\n    \"docs\": {\"command\": \"true\"}\n  }\n}\n")
	e.ok("init", "--gemini", "--mcp")
	out := mcpRealList(t, e, gemini, "GEMINI_CLI_TRUST_WORKSPACE=true", "GEMINI_CLI_NO_RELAUNCH=true", "NO_BROWSER=1", "GEMINI_API_KEY=dummy")
	if !strings.Contains(out, "turnback: turnback mcp (stdio) - Connected") || strings.Contains(out, "Invalid configuration") {
		t.Errorf("Gemini CLI did not connect to turnback mcp:\n%s", out)
	}
}

// TestMCPRealCodex: Codex lists the server of a trusted project's
// .codex/config.toml.
func TestMCPRealCodex(t *testing.T) {
	codex := codexAgent.program(t)
	e := newHookEnv(t)
	e.putOnPath()
	e.write(".codex/config.toml", "[mcp_servers.docs]\ncommand = \"true\"\n")
	e.ok("init", "--codex", "--mcp")
	cliWriteFile(t, filepath.Join(e.home, ".codex", "config.toml"), fmt.Appendf(nil, "[projects.%q]\ntrust_level = \"trusted\"\n", e.dir))
	out := mcpRealList(t, e, codex, "CODEX_HOME="+filepath.Join(e.home, ".codex"))
	var found bool
	for _, line := range strings.Split(out, "\n") {
		if f := strings.Fields(line); len(f) >= 3 && f[0] == "turnback" && f[1] == "turnback" && f[2] == "mcp" && strings.Contains(line, "enabled") {
			found = true
		}
	}
	if !found {
		t.Errorf("Codex does not list turnback mcp:\n%s", out)
	}
}
