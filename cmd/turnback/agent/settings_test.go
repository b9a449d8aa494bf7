package agent

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNormaliser: the one normaliser takes the session from session_id,
// sessionId, conversation_id or taskId (in that order), the folder from
// cwd or the first of workspace_roots or workspaceRoots, and counts a
// field of another JSON type as absent.
func TestNormaliser(t *testing.T) {
	for _, c := range []struct{ payload, session, cwd string }{
		{`{"session_id":"a","sessionId":"b","cwd":"/x","workspace_roots":["/y"]}`, "a", "/x"},
		{`{"sessionId":"b","conversation_id":"c"}`, "b", ""},
		{`{"conversation_id":"c","taskId":"d","workspace_roots":["/y","/z"]}`, "c", "/y"},
		{`{"taskId":"d","workspaceRoots":["/w"]}`, "d", "/w"},
		{`{"session_id":7,"sessionId":"b","cwd":["/x"],"workspace_roots":"/y","workspaceRoots":["/w"]}`, "b", "/w"},
		{`{"session_id":"","cwd":"","workspace_roots":[]}`, "", ""},
	} {
		p, err := readPayload([]byte(c.payload))
		if err != nil {
			t.Fatal(err)
		}
		if ev := p.event(); ev.Session != c.session || ev.Cwd != c.cwd {
			t.Errorf("%s: session %q, cwd %q; want %q, %q", c.payload, ev.Session, ev.Cwd, c.session, c.cwd)
		}
	}
}

// FuzzInitRoundTrip: for every agent, on any settings file init accepts
// that has no turnback hook, no empty "hooks" and no empty list of one
// of the agent's events, install then uninstall gives back the file
// byte for byte, and install's result is one init reads again.
func FuzzInitRoundTrip(f *testing.F) {
	for _, s := range []string{
		"{}", "{\n  \"a\": 1\n}\n", `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"x"}]}]}}`,
		"// c\n{\n\t\"hooks\": { // h\n\t\t\"stop\": [ {\"command\": \"x\"} // after\n\t\t]\n\t} /* end */\n}\n",
		"{\"version\": 1, \"hooks\": {\"agentStop\": [{\"bash\": \"y\"} /* b */ ], \"x\": 2}}",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		if strings.Contains(src, "turnback") || bytes.HasPrefix([]byte(src), []byte("\ufeff")) {
			return
		}
		d, err := parseJSONC([]byte(src))
		if err != nil || d.root.kind != '{' || len(bytes.TrimSpace([]byte(src))) == 0 {
			return
		}
		for _, a := range all {
			if a.plugin != nil || a.structure(d) != "" || hasEmpty(d, a) {
				continue
			}
			path := filepath.Join(t.TempDir(), "settings.json")
			if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
			if _, err := a.install(path, "turnback hook "+a.Name); err != nil {
				t.Fatalf("%s: install(%q): %v", a.Name, src, err)
			}
			installed, _ := os.ReadFile(path)
			if _, err := parseJSONC(installed); err != nil {
				t.Fatalf("%s: install(%q) wrote what it cannot read (%v):\n%s", a.Name, src, err, installed)
			}
			if _, _, err := a.uninstall(path, "turnback hook "+a.Name); err != nil {
				t.Fatalf("%s: uninstall: %v", a.Name, err)
			}
			back, err := os.ReadFile(path)
			if err != nil && string(a.baseFile()) != src {
				t.Fatalf("%s: %v", a.Name, err)
			}
			if err == nil && string(back) != src {
				t.Fatalf("%s: install then uninstall of\n%q\ngave\n%q\n(installed: %q)", a.Name, src, back, installed)
			}
		}
	})
}

// hasEmpty: an empty "hooks", an empty list of one of a's events, or a
// key repeated in the top object or "hooks" (init cannot tell those
// from what it adds and removes them).
func hasEmpty(d *jdoc, a *Agent) bool {
	seen := map[string]bool{}
	for _, m := range d.root.members {
		if seen[m.key] {
			return true
		}
		seen[m.key] = true
	}
	h := d.root.get("hooks")
	if h == nil {
		return false
	}
	if len(h.members) == 0 {
		return true
	}
	seen = map[string]bool{}
	for _, m := range h.members {
		if seen[m.key] || (m.val.kind == '[' && len(m.val.elems) == 0) {
			return true
		}
		seen[m.key] = true
	}
	return false
}
