package agent

// MCP registration: init --AGENT --mcp adds turnback's MCP server
// ("turnback mcp") to the file where the agent takes MCP servers from
// a project, and init --remove takes it out again (with or without
// --mcp). JSON files get a "turnback" member of "mcpServers", edited
// in place as the hooks are (settings.go); Codex's config.toml gets a
// [mcp_servers.turnback] table appended, and removal cuts that table
// and the blank line before it.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/turnback/turnback/cmd/turnback/termout"
	"github.com/turnback/turnback/internal/lazyre"
)

// mcpServer is the name turnback's server is registered under.
const mcpServer = "turnback"

// mcpFile is where an agent takes MCP servers from.
type mcpFile struct {
	rel    string   // the project's file, slash-separated
	global string   // the user's, relative to the home ("": init --global cannot)
	why    string   // without global: what to do instead
	toml   bool     // Codex's config.toml
	args   []string // before "mcp": how the server finds the folder
}

// mcpFiles are the agents that take MCP servers from a project file.
// Claude Code keeps user-level servers in ~/.claude.json, which it
// rewrites itself; Copilot has no project file for them.
var mcpFiles = map[string]mcpFile{
	"claude": {rel: ".mcp.json", why: "Claude Code keeps user-level MCP servers in ~/.claude.json, which it rewrites itself: run claude mcp add --scope user turnback -- turnback mcp"},
	"gemini": {rel: ".gemini/settings.json", global: ".gemini/settings.json"},
	"qwen":   {rel: ".qwen/settings.json", global: ".qwen/settings.json"},
	// Cursor starts servers in no particular folder: it puts the
	// workspace's in place of ${workspaceFolder}.
	"cursor": {rel: ".cursor/mcp.json", global: ".cursor/mcp.json", args: []string{"-C", "${workspaceFolder}"}},
	// Codex reads a project's .codex/config.toml once the project is
	// trusted.
	"codex": {rel: ".codex/config.toml", global: ".codex/config.toml", toml: true},
}

// ErrNoMCP: the agent takes no MCP servers from a file init can edit.
var ErrNoMCP = errors.New("turnback init: --mcp")

// MCPResult is what init did to the agent's MCP servers.
type MCPResult struct {
	Settings string `json:"settings"`
	Changed  bool   `json:"changed"`
	// Command is the server's program and arguments (not on removal);
	// OffPath: the program is this executable's absolute path.
	Command []string `json:"command,omitempty"`
	OffPath bool     `json:"off_path,omitempty"`
	Deleted bool     `json:"deleted,omitempty"`
	remove  bool
}

// InitReport is what init did: the hooks (InitResult) and, when it
// touched them, the MCP servers.
type InitReport struct {
	InitResult
	MCP *MCPResult `json:"mcp,omitempty"`
}

// InitWithMCP is Init, and with mcp also registers turnback's MCP
// server (MCPPath). With o.Remove it also takes out the server, if
// registered, whether mcp is set or not.
func (a *Agent) InitWithMCP(o InitOptions, mcp bool) (InitReport, error) {
	f, ok := mcpFiles[a.Name]
	var path string
	switch {
	case !ok && mcp && !o.Remove:
		return InitReport{}, fmt.Errorf("%w: %s takes no MCP servers from a settings file init can edit", ErrNoMCP, a.Title)
	case ok && o.Global && f.global == "" && mcp && !o.Remove:
		return InitReport{}, fmt.Errorf("%w --global: %s", ErrNoMCP, f.why)
	case ok && (!o.Global || f.global != ""):
		rel := f.rel
		if o.Global {
			rel = f.global
		}
		var err error
		if path, err = a.initPath(rel, o.Dir, o.Global, o.Getenv); err != nil {
			return InitReport{}, err
		}
	}
	var prog []string
	offPath := false
	if mcp && !o.Remove {
		var err error
		if prog, offPath, err = a.mcpCommand(f); err != nil {
			return InitReport{}, err
		}
		// A file init cannot edit stops it before the hooks change.
		if _, err := f.edit(path, prog, false); err != nil {
			return InitReport{}, err
		}
	}
	r, err := a.Init(o)
	rep := InitReport{InitResult: r}
	if err != nil || path == "" || (!mcp && !o.Remove) {
		return rep, err
	}
	m := &MCPResult{Settings: path, remove: o.Remove}
	if o.Remove {
		m.Changed, m.Deleted, err = f.uninstall(path)
	} else {
		m.Command, m.OffPath = prog, offPath
		m.Changed, err = f.edit(path, prog, true)
	}
	if mcp || m.Changed {
		rep.MCP = m
	}
	return rep, err
}

// mcpCommand is the server's program and arguments, by the rules of
// the hooks' command (Agent.command): "turnback" when it is on PATH,
// else this executable's absolute path.
func (a *Agent) mcpCommand(f mcpFile) ([]string, bool, error) {
	_, offPath, err := a.command()
	if err != nil {
		return nil, false, err
	}
	prog := "turnback"
	if offPath {
		if prog, err = os.Executable(); err == nil {
			prog, err = filepath.EvalSymlinks(prog)
		}
		if err != nil {
			return nil, false, fmt.Errorf("turnback init: %w", err)
		}
	}
	return append(append([]string{prog}, f.args...), "mcp"), offPath, nil
}

// Print writes what init did, as one JSON document with asJSON.
func (r InitReport) Print(w io.Writer, asJSON bool) {
	if asJSON {
		termout.WriteJSON(w, r)
		return
	}
	r.InitResult.Print(w, false)
	m := r.MCP
	if m == nil {
		return
	}
	path := termout.QuotePath(m.Settings)
	switch {
	case m.remove && m.Deleted:
		fmt.Fprintf(w, "removed turnback's MCP server: deleted %s, which held nothing else\n", path)
	case m.remove && m.Changed:
		fmt.Fprintf(w, "removed turnback's MCP server from %s\n", path)
	case m.remove:
		fmt.Fprintf(w, "%s has no turnback MCP server; nothing changed\n", path)
	case m.Changed:
		fmt.Fprintf(w, "added turnback's MCP server (%s) to %s\n", termout.SafeText(strings.Join(m.Command, " ")), path)
	default:
		fmt.Fprintf(w, "%s already has turnback's MCP server; nothing changed\n", path)
	}
}

// edit adds the server (prog) to the file at path, writing it only
// with write, and reports whether it changes; a file init cannot edit
// is an error and stays as it is.
func (f mcpFile) edit(path string, prog []string, write bool) (bool, error) {
	data, mode, err := readMCP(path)
	if err != nil {
		return false, err
	}
	var out []byte
	if f.toml {
		out, err = tomlAdd(data, prog)
	} else {
		out, err = jsonAdd(data, prog)
	}
	if err != nil {
		return false, fmt.Errorf("turnback init: %s: %v; it was left untouched", path, err)
	}
	if bytes.Equal(out, data) {
		return false, nil
	}
	if write {
		err = writeAtomic(path, out, mode)
	}
	return true, err
}

// uninstall takes the server out of the file at path; a file left as
// init would have started it is deleted, with the folders init made.
func (f mcpFile) uninstall(path string) (changed, deleted bool, err error) {
	if _, err := os.Lstat(path); errors.Is(err, os.ErrNotExist) {
		return false, false, nil
	}
	data, mode, err := readMCP(path)
	if err != nil {
		return false, false, err
	}
	var out []byte
	if f.toml {
		out = tomlRemove(data)
	} else if out, err = jsonRemove(data); err != nil {
		return false, false, fmt.Errorf("turnback init: %s: %v; it was left untouched", path, err)
	}
	if bytes.Equal(out, data) {
		return false, false, nil
	}
	if len(bytes.TrimSpace(out)) == 0 || (!f.toml && string(out) == "{}\n") {
		if err := os.Remove(path); err != nil {
			return false, false, fmt.Errorf("turnback init: %w", err)
		}
		for dir, i := filepath.Dir(path), strings.Count(f.rel, "/"); i > 0 && os.Remove(dir) == nil; dir, i = filepath.Dir(dir), i-1 {
		}
		return true, true, nil
	}
	return true, false, writeAtomic(path, out, mode)
}

// readMCP returns the file's bytes (none when it does not exist) and
// mode.
func readMCP(path string) ([]byte, os.FileMode, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, 0o644, nil
	}
	if err != nil {
		return nil, 0, fmt.Errorf("turnback init: %w", err)
	}
	mode := os.FileMode(0o644)
	if fi, err := os.Stat(path); err == nil {
		mode = fi.Mode().Perm()
	}
	return data, mode, nil
}

// mcpEntry is the server as the JSON files spell it.
type mcpEntry struct {
	Command string   `json:"command"`
	Args    []string `json:"args"`
}

// parseServers parses a JSON settings file (an empty one reads as {})
// and returns it with its "mcpServers" (nil when absent).
func parseServers(data []byte) ([]byte, *jdoc, *jnode, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		data = []byte("{}\n")
	}
	d, err := parseJSONC(data)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("not valid JSON (%v)", err)
	}
	if d.root.kind != '{' {
		return nil, nil, nil, errors.New("the settings are not a JSON object")
	}
	servers := d.root.get("mcpServers")
	if servers != nil && servers.kind != '{' {
		return nil, nil, nil, errors.New(`"mcpServers" is not a JSON object`)
	}
	return data, d, servers, nil
}

// isOurs reports whether a server entry runs "turnback ... mcp".
func isOurs(d *jdoc, n *jnode) bool {
	var e mcpEntry
	if json.Unmarshal(d.clean[n.start:n.end], &e) != nil {
		return false
	}
	return strings.Contains(e.Command, "turnback") && len(e.Args) > 0 && e.Args[len(e.Args)-1] == "mcp"
}

// jsonAdd adds "turnback": {"command", "args"} to "mcpServers" (made
// at the end of the file when absent), unless turnback's is there.
func jsonAdd(data []byte, prog []string) ([]byte, error) {
	data, d, servers, err := parseServers(data)
	if err != nil {
		return nil, err
	}
	if servers != nil {
		if n := servers.get(mcpServer); n != nil {
			if !isOurs(d, n) {
				return nil, errors.New(`"mcpServers" has a "turnback" server that does not run turnback mcp`)
			}
			return data, nil
		}
	}
	unit := indentUnit(d)
	entry := mcpEntry{Command: prog[0], Args: prog[1:]}
	member := func(ind string) string { return fmt.Sprintf("%q: %s", mcpServer, marshal(entry, ind, unit)) }
	var edits []edit
	if servers != nil {
		edits = appendItem(d, servers, unit, member)
	} else {
		edits = appendItem(d, d.root, unit, func(ind string) string {
			return "\"mcpServers\": {\n" + ind + unit + member(ind+unit) + "\n" + ind + "}"
		})
	}
	return apply(data, edits), nil
}

// jsonRemove cuts turnback's server, and "mcpServers" if that leaves
// it empty.
func jsonRemove(data []byte) ([]byte, error) {
	data, d, servers, err := parseServers(data)
	if err != nil || servers == nil {
		return data, err
	}
	cut := make([]bool, len(servers.members))
	n := 0
	for i, m := range servers.members {
		if cut[i] = m.key == mcpServer && isOurs(d, m.val); cut[i] {
			n++
		}
	}
	switch {
	case n == 0:
		return data, nil
	case n < len(cut):
		return apply(data, removeItems(data, servers, cut)), nil
	}
	top := make([]bool, len(d.root.members))
	for i, m := range d.root.members {
		top[i] = m.val == servers
	}
	return apply(data, removeItems(data, d.root, top)), nil
}

// tomlHeader matches the header of turnback's table, tomlServers that
// of [mcp_servers], tomlKey a "turnback" key (of [mcp_servers]: another
// spelling of turnback's table), tomlDotted a top-level
// mcp_servers.turnback key, and tomlAnyTable any table's header.
var (
	tomlHeader   = lazyre.New(`(?m)^[ \t]*\[[ \t]*mcp_servers[ \t]*\.[ \t]*("turnback"|'turnback'|turnback)[ \t]*\][ \t]*(#.*)?\r?$`)
	tomlServers  = lazyre.New(`(?m)^[ \t]*\[[ \t]*mcp_servers[ \t]*\][ \t]*(#.*)?\r?$`)
	tomlKey      = lazyre.New(`(?m)^[ \t]*("turnback"|'turnback'|turnback)[ \t]*[=.]`)
	tomlDotted   = lazyre.New(`(?m)^[ \t]*mcp_servers[ \t]*\.[ \t]*("turnback"|'turnback'|turnback)[ \t]*[=.]`)
	tomlAnyTable = lazyre.New(`(?m)^[ \t]*\[`)
)

// tomlHas reports whether config.toml defines a "turnback" MCP server
// in any spelling: its table, a key of [mcp_servers], or a top-level
// dotted key (before the first table).
func tomlHas(data []byte) bool {
	if tomlHeader().Match(data) {
		return true
	}
	first := len(data)
	if m := tomlAnyTable().FindIndex(data); m != nil {
		first = m[0]
	}
	if tomlDotted().Match(data[:first]) {
		return true
	}
	for _, m := range tomlServers().FindAllIndex(data, -1) {
		section := data[m[1]:]
		if n := tomlAnyTable().FindIndex(section); n != nil {
			section = section[:n[0]]
		}
		if tomlKey().Match(section) {
			return true
		}
	}
	return false
}

// tomlBlock is the table init appends to config.toml.
func tomlBlock(prog []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "[mcp_servers.%s]\ncommand = %s\nargs = [", mcpServer, tomlString(prog[0]))
	for i, a := range prog[1:] {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(tomlString(a))
	}
	b.WriteString("]\n")
	return b.String()
}

// tomlString is s as a TOML basic string (JSON's escapes are TOML's).
func tomlString(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return strings.TrimSuffix(b.String(), "\n")
}

// tomlAdd appends turnback's table unless the file has one (tomlHas).
func tomlAdd(data []byte, prog []string) ([]byte, error) {
	if tomlHas(data) {
		return data, nil
	}
	// After a file that ends with a line break, a blank line; after one
	// that does not, only the line break (tomlRemove tells them apart).
	sep := ""
	if len(data) > 0 {
		sep = "\n"
	}
	return append(append(bytes.Clone(data), sep...), tomlBlock(prog)...), nil
}

// tomlRemove cuts turnback's table (up to the next table that is not
// one of its subtables) and the separator tomlAdd put before it.
func tomlRemove(data []byte) []byte {
	loc := tomlHeader().FindIndex(data)
	if loc == nil {
		return data
	}
	start, end := loc[0], len(data)
	rest := data[loc[1]:]
	for _, m := range tomlAnyTable().FindAllIndex(rest, -1) {
		line := rest[m[0]:]
		if !bytes.HasPrefix(bytes.TrimLeft(line, " \t"), []byte("[mcp_servers."+mcpServer+".")) {
			end = loc[1] + m[0]
			break
		}
	}
	before := data[:start]
	switch {
	case bytes.HasSuffix(before, []byte("\n\n")):
		before = before[:len(before)-1]
	case end == len(data) && bytes.HasSuffix(before, []byte("\n")):
		before = before[:len(before)-1]
	}
	return append(bytes.Clone(before), data[end:]...)
}
