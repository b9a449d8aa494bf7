package agent

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var mcpProg = []string{"/opt/my tools/turnback", "mcp"}

// TestMCPRoundTrip: for JSON and TOML files of many shapes, adding the
// server writes what the case says, adding it again changes nothing,
// and removing it gives back the file byte for byte (or deletes a file
// that was not there).
func TestMCPRoundTrip(t *testing.T) {
	for _, c := range []struct {
		name, orig, want string
		toml, absent     bool
	}{
		{name: "json absent", absent: true,
			want: "{\n  \"mcpServers\": {\n    \"turnback\": {\n      \"command\": \"/opt/my tools/turnback\",\n      \"args\": [\n        \"mcp\"\n      ]\n    }\n  }\n}\n"},
		{name: "json other servers", orig: "{\n\t\"mcpServers\": {\n\t\t\"x\": {\"command\": \"x\"} // mine\n\t},\n\t\"a\": 1\n}\n",
			want: "{\n\t\"mcpServers\": {\n\t\t\"x\": {\"command\": \"x\"}, // mine\n\t\t\"turnback\": {\n\t\t\t\"command\": \"/opt/my tools/turnback\",\n\t\t\t\"args\": [\n\t\t\t\t\"mcp\"\n\t\t\t]\n\t\t}\n\t},\n\t\"a\": 1\n}\n"},
		{name: "json no servers", orig: "{\"hooks\": {}}",
			want: "{\"hooks\": {},\n  \"mcpServers\": {\n    \"turnback\": {\n      \"command\": \"/opt/my tools/turnback\",\n      \"args\": [\n        \"mcp\"\n      ]\n    }\n  }}"},
		{name: "toml absent", toml: true, absent: true,
			want: "[mcp_servers.turnback]\ncommand = \"/opt/my tools/turnback\"\nargs = [\"mcp\"]\n"},
		{name: "toml tables", toml: true, orig: "model = \"o3\"\n\n[mcp_servers.docs]\ncommand = \"docs\"\n",
			want: "model = \"o3\"\n\n[mcp_servers.docs]\ncommand = \"docs\"\n\n[mcp_servers.turnback]\ncommand = \"/opt/my tools/turnback\"\nargs = [\"mcp\"]\n"},
		{name: "toml no final newline", toml: true, orig: "model = \"o3\"",
			want: "model = \"o3\"\n[mcp_servers.turnback]\ncommand = \"/opt/my tools/turnback\"\nargs = [\"mcp\"]\n"},
		{name: "toml blank lines", toml: true, orig: "a = 1\n\n\n",
			want: "a = 1\n\n\n\n[mcp_servers.turnback]\ncommand = \"/opt/my tools/turnback\"\nargs = [\"mcp\"]\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := mcpFile{rel: "x/settings", toml: c.toml}
			dir := t.TempDir()
			path := filepath.Join(dir, "x", "settings")
			if !c.absent {
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(c.orig), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			if changed, err := f.edit(path, mcpProg, true); err != nil || !changed {
				t.Fatalf("add: %v %v", changed, err)
			}
			got, _ := os.ReadFile(path)
			if string(got) != c.want {
				t.Errorf("add wrote:\n%q\nwant:\n%q", got, c.want)
			}
			if !c.absent {
				if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
					t.Errorf("mode %v", fi.Mode())
				}
			}
			if changed, err := f.edit(path, []string{"turnback", "mcp"}, true); err != nil || changed {
				t.Errorf("second add: %v %v", changed, err)
			}
			changed, deleted, err := f.uninstall(path)
			if err != nil || !changed || deleted != c.absent {
				t.Fatalf("remove: %v %v %v", changed, deleted, err)
			}
			if c.absent {
				if _, err := os.Stat(filepath.Join(dir, "x")); !errors.Is(err, os.ErrNotExist) {
					t.Errorf("the folder init made stays: %v", err)
				}
				return
			}
			if got, _ := os.ReadFile(path); string(got) != c.orig {
				t.Errorf("remove left:\n%q\nwant:\n%q", got, c.orig)
			}
			if changed, _, err := f.uninstall(path); err != nil || changed {
				t.Errorf("second remove: %v %v", changed, err)
			}
		})
	}
}

// TestMCPRefuses: files init cannot edit stay as they are, with the
// reason; a "turnback" server that is someone else's is neither
// replaced nor removed; other spellings of the TOML table count as
// present.
func TestMCPRefuses(t *testing.T) {
	for _, c := range []struct {
		src, want string
		toml      bool
	}{
		{src: "[1]", want: "not a JSON object"},
		{src: "{\"mcpServers\": [],}", want: "not valid JSON"},
		{src: "{\"mcpServers\": []}", want: `"mcpServers" is not a JSON object`},
		{src: "{\"mcpServers\": {\"turnback\": {\"command\": \"npx\", \"args\": [\"turnback-mcp\"]}}}", want: "does not run turnback mcp"},
		{src: "[mcp_servers]\nturnback = { command = \"x\" }\n", toml: true},
		{src: "mcp_servers.turnback.command = \"x\"\n", toml: true},
		{src: "[mcp_servers.'turnback'] # mine\ncommand = \"x\"\n", toml: true},
	} {
		path := filepath.Join(t.TempDir(), "settings")
		if err := os.WriteFile(path, []byte(c.src), 0o644); err != nil {
			t.Fatal(err)
		}
		f := mcpFile{rel: "settings", toml: c.toml}
		changed, err := f.edit(path, mcpProg, true)
		if c.want == "" && (err != nil || changed) || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%q: add: %v %v, want %q", c.src, changed, err, c.want)
		}
		if c.toml && strings.Contains(c.src, "[mcp_servers.'turnback']") {
			// Turnback's table in another spelling: removal takes it.
			if changed, _, err := f.uninstall(path); err != nil || !changed {
				t.Errorf("%q: remove: %v %v", c.src, changed, err)
			}
			continue
		}
		if changed, _, _ := f.uninstall(path); changed {
			t.Errorf("%q: remove changed it", c.src)
		}
		if got, _ := os.ReadFile(path); string(got) != c.src {
			t.Errorf("%q: left %q", c.src, got)
		}
	}
}

// FuzzMCPRoundTrip: on any JSON settings file init accepts, and any
// TOML text, without a turnback server (and, for JSON, without an
// empty "mcpServers"), adding then removing the server gives back the
// bytes, and what adding wrote is read again as having it.
func FuzzMCPRoundTrip(f *testing.F) {
	for _, s := range []string{"{}", "{\n  \"a\": 1\n}\n", "{\"mcpServers\": {\"x\": {}} /* c */}", "a = 1", "[t]\nx = 1\n\n", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		if strings.Contains(src, "turnback") || strings.Contains(src, "\r") {
			return
		}
		for _, isTOML := range []bool{false, true} {
			data := []byte(src)
			var added, back []byte
			var err error
			if isTOML {
				if added, err = tomlAdd(data, mcpProg); err != nil {
					t.Fatal(err)
				}
				if !tomlHas(added) {
					t.Fatalf("%q: added %q has no server", src, added)
				}
				back = tomlRemove(added)
			} else {
				d, err := parseJSONC(data)
				if err != nil || d.root.kind != '{' || bytes.HasPrefix(data, []byte("\ufeff")) {
					continue
				}
				if s := d.root.get("mcpServers"); s != nil && (s.kind != '{' || len(s.members) == 0) {
					continue
				}
				if added, err = jsonAdd(data, mcpProg); err != nil {
					t.Fatalf("%q: %v", src, err)
				}
				_, d2, servers, err := parseServers(added)
				if err != nil || servers == nil || servers.get(mcpServer) == nil || !isOurs(d2, servers.get(mcpServer)) {
					t.Fatalf("%q: added %q: %v", src, added, err)
				}
				if back, err = jsonRemove(added); err != nil {
					t.Fatal(err)
				}
			}
			if !bytes.Equal(back, data) {
				t.Fatalf("toml %v: %q -> %q -> %q", isTOML, src, added, back)
			}
		}
	})
}
