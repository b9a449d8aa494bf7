package cli

// init --AGENT --mcp: turnback's MCP server registered where each agent
// takes MCP servers from a project, next to other servers, and init
// --remove giving back every file byte for byte.

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// mcpAgentFiles: where init --AGENT --mcp registers the server, and a
// file there with another server (and, for the hooks' own files,
// other settings).
var mcpAgentFiles = map[string]struct{ rel, orig string }{
	"claude": {".mcp.json", "{\n  \"mcpServers\": {\n    \"docs\": {\n      \"command\": \"npx\",\n      \"args\": [\"-y\", \"docs-mcp\"]\n    }\n  }\n}\n"},
	"gemini": {".gemini/settings.json", "{\n  // mine\n  \"theme\": \"dark\",\n  \"mcpServers\": {\n    \"docs\": {\"command\": \"docs\"}\n  }\n}\n"},
	"qwen":   {".qwen/settings.json", "{\n  \"mcpServers\": {\n    \"docs\": {\"command\": \"docs\"}\n  },\n  \"model\": \"x\"\n}\n"},
	"cursor": {".cursor/mcp.json", "{\n\t\"mcpServers\": {\n\t\t\"docs\": {\"url\": \"http://127.0.0.1:9/mcp\"}\n\t}\n}\n"},
	"codex":  {".codex/config.toml", "# project settings\n[mcp_servers.docs]\ncommand = \"docs\"\nargs = [\"--stdio\"]\n"},
}

// TestInitMCP: for every agent that takes MCP servers from a project
// file, init --mcp adds turnback's server to that file as
// testdata/mcp/<agent>.golden says (turnback on PATH), a second init
// changes nothing, and init --remove (without --mcp) gives back the
// file, and leaves the folder, byte for byte. Off PATH, the server is
// this binary by its absolute path.
func TestInitMCP(t *testing.T) {
	t.Parallel()
	for agent, f := range mcpAgentFiles {
		t.Run(agent, func(t *testing.T) {
			t.Parallel()
			e := newHookEnv(t)
			e.putOnPath()
			e.mkdir(filepath.Dir(f.rel))
			e.write(f.rel, f.orig)
			before := e.tree()
			r := e.ok("init", "--"+agent, "--mcp")
			if !strings.HasSuffix(r.stdout, "added turnback's MCP server ("+strings.Join(mcpWantCommand(agent, "turnback"), " ")+") to "+e.path(f.rel)+"\n") {
				t.Errorf("init --mcp:\n%s", r)
			}
			got := e.read(f.rel)
			golden := filepath.Join("..", "testdata", "mcp", agent+".golden")
			if *updateMCPGolden {
				cliWriteFile(t, golden, got)
			}
			if want, err := os.ReadFile(golden); err != nil || !bytes.Equal(got, want) {
				t.Errorf("init --mcp wrote (want %s, -update-mcp-golden rewrites it; %v):\n%s", golden, err, got)
			}
			if r := e.ok("init", "--"+agent, "--mcp"); !strings.HasSuffix(r.stdout, "already has turnback's MCP server; nothing changed\n") || !bytes.Equal(e.read(f.rel), got) {
				t.Errorf("second init --mcp:\n%s", r)
			}
			r = e.ok("init", "--"+agent, "--remove")
			if !strings.HasSuffix(r.stdout, "removed turnback's MCP server from "+e.path(f.rel)+"\n") {
				t.Errorf("init --remove:\n%s", r)
			}
			e.same("after init --mcp and init --remove", before)
			if r := e.ok("init", "--"+agent, "--remove"); strings.Contains(r.stdout, "MCP server") {
				t.Errorf("second --remove mentions MCP:\n%s", r)
			}
		})
	}
}

// mcpWantCommand is the server's command line for agent, its program
// prog.
func mcpWantCommand(agent, prog string) []string {
	if agent == "cursor" {
		return []string{prog, "-C", "${workspaceFolder}", "mcp"}
	}
	return []string{prog, "mcp"}
}

// TestInitMCPEdges: off PATH the server runs this binary by its path
// (--json says so); an agent without MCP settings, Claude Code's
// user-level servers and a file init cannot edit are errors that
// change nothing.
func TestInitMCPEdges(t *testing.T) {
	t.Parallel()
	e := newHookEnv(t)
	e.extra = append(e.extra, "PATH=/nonexistent")
	var doc struct {
		Settings string `json:"settings"`
		MCP      struct {
			Settings string   `json:"settings"`
			Changed  bool     `json:"changed"`
			Command  []string `json:"command"`
			OffPath  bool     `json:"off_path"`
		} `json:"mcp"`
	}
	e.okJSON(&doc, "init", "--claude", "--mcp")
	if doc.MCP.Settings != e.path(".mcp.json") || !doc.MCP.Changed || !doc.MCP.OffPath || strings.Join(doc.MCP.Command, " ") != e.bin+" mcp" {
		t.Errorf("init --claude --mcp --json off PATH: %+v", doc)
	}
	r := e.ok("init", "--claude", "--remove")
	if !strings.Contains(r.stdout, "removed turnback's MCP server: deleted "+e.path(".mcp.json")+", which held nothing else\n") {
		t.Errorf("remove: %s", r)
	}
	if entries, _ := os.ReadDir(e.dir); len(entries) != 0 {
		t.Errorf("left in the folder: %v", entries)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"init", "--copilot", "--mcp"}, "GitHub Copilot (CLI and VS Code) takes no MCP servers"},
		{[]string{"init", "--claude", "--mcp", "--global"}, "claude mcp add --scope user"},
	} {
		if r := e.expect(1, c.args...); !strings.Contains(r.stderr, c.want) {
			t.Errorf("%v: %s", c.args, r)
		}
	}
	e.write(".mcp.json", "{\"mcpServers\": [],}")
	if r := e.expect(1, "init", "--claude", "--mcp"); !strings.Contains(r.stderr, "left untouched") {
		t.Errorf("bad .mcp.json: %s", r)
	}
	if entries, _ := os.ReadDir(e.dir); len(entries) != 1 {
		t.Errorf("init changed the folder before refusing: %v", entries)
	}
	if entries, _ := os.ReadDir(e.home); len(entries) != 0 {
		t.Errorf("init wrote in HOME: %v", entries)
	}
	// --global: the user's files, and --remove leaves HOME empty again.
	for agent, rel := range map[string]string{"gemini": ".gemini/settings.json", "qwen": ".qwen/settings.json", "cursor": ".cursor/mcp.json", "codex": ".codex/config.toml"} {
		e.ok("init", "--"+agent, "--global", "--mcp")
		if data, err := os.ReadFile(filepath.Join(e.home, rel)); err != nil || !strings.Contains(string(data), e.bin) {
			t.Errorf("init --%s --global --mcp: %s %v", agent, data, err)
		}
		e.ok("init", "--"+agent, "--global", "--remove")
	}
	if entries, _ := os.ReadDir(e.home); len(entries) != 0 {
		t.Errorf("init --global then --remove left in HOME: %v", entries)
	}
}
