package cli

// End-to-end tests of "turnback init": adding the agents' hooks to their
// settings files, keeping everything else in them.

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// claudeSettings is an existing .claude/settings.json with other hooks
// and keys, hand-written (4-space indent, keys in no sorted order).
const claudeSettings = `{
    "permissions": {
        "allow": ["Bash(npm run lint)", "Bash(npm run test:*)"],
        "deny": ["Read(./.env)", "Read(./secrets/**)"]
    },
    "env": {"NODE_ENV": "development", "DEBUG": "app:*"},
    "hooks": {
        "PreToolUse": [
            {
                "matcher": "Bash",
                "hooks": [{"type": "command", "command": "\"$CLAUDE_PROJECT_DIR\"/.claude/hooks/check-bash.sh", "timeout": 10}]
            }
        ],
        "Stop": [
            {"hooks": [{"type": "command", "command": "echo hi"}]}
        ]
    },
    "model": "claude-sonnet-4-5",
    "includeCoAuthoredBy": false
}
`

// geminiSettings is an existing .gemini/settings.json.
const geminiSettings = `{
  "general": {"preferredEditor": "vim", "vimMode": true},
  "ui": {"theme": "GitHub"},
  "hooks": {
    "BeforeTool": [
      {
        "matcher": "write_file|replace",
        "hooks": [{"name": "secret-scan", "type": "command", "command": "$GEMINI_PROJECT_DIR/.gemini/hooks/scan.sh", "timeout": 5000}]
      }
    ],
    "AfterAgent": [
      {"hooks": [{"name": "notify", "type": "command", "command": "echo hi", "timeout": 1000}]}
    ]
  },
  "mcpServers": {"docs": {"command": "docs-mcp", "args": ["--stdio"]}}
}
`

// jsonKeys returns the keys of the JSON object data in their order.
func jsonKeys(t *testing.T, data []byte) []string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		t.Fatalf("not a JSON object (%v):\n%s", err, data)
	}
	var keys []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, tok.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	return keys
}

// parseJSONObject decodes data into generic values.
func parseJSONObject(t *testing.T, data []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, data)
	}
	return m
}

// turnbackHook reports whether group (one element of hooks.EVENT) is a
// group with exactly one hook, turnback's "hook agent" command.
func turnbackHook(group any, agent string) (string, bool) {
	g, ok := group.(map[string]any)
	if !ok {
		return "", false
	}
	hs, ok := g["hooks"].([]any)
	if !ok || len(hs) != 1 {
		return "", false
	}
	h, ok := hs[0].(map[string]any)
	if !ok || h["type"] != "command" {
		return "", false
	}
	cmd, _ := h["command"].(string)
	if !strings.Contains(cmd, "turnback") || !strings.HasSuffix(cmd, " hook "+agent) {
		return cmd, false
	}
	return cmd, true
}

// TestInitMerge: init adds turnback's hooks and keeps every other hook
// and key, in order; a second run changes nothing.
func TestInitMerge(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		agent, flag, file, settings string
		events                      []string
		preexisting                 map[string]int // event -> groups already there
		timeout                     float64
	}{
		{"claude", "--claude", ".claude/settings.json", claudeSettings,
			[]string{"UserPromptSubmit", "Stop", "SessionEnd"}, map[string]int{"PreToolUse": 1, "Stop": 1}, 30},
		{"gemini", "--gemini", ".gemini/settings.json", geminiSettings,
			[]string{"BeforeAgent", "AfterAgent", "SessionEnd"}, map[string]int{"BeforeTool": 1, "AfterAgent": 1}, 30000},
	} {
		t.Run(c.agent, func(t *testing.T) {
			t.Parallel()
			e := newHookEnv(t)
			path := filepath.Join(e.dir, filepath.FromSlash(c.file))
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte(c.settings), 0o600); err != nil {
				t.Fatal(err)
			}
			r := e.ok("init", c.flag)
			if !strings.Contains(r.stdout, "added turnback hooks") {
				t.Errorf("init output:\n%s", r)
			}
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			old, now := parseJSONObject(t, []byte(c.settings)), parseJSONObject(t, data)

			// Top-level keys: same, same order; all but hooks unchanged.
			if got, want := jsonKeys(t, data), jsonKeys(t, []byte(c.settings)); !reflect.DeepEqual(got, want) {
				t.Errorf("top-level keys %v, want %v (order kept)", got, want)
			}
			for k, v := range old {
				if k != "hooks" && !reflect.DeepEqual(now[k], v) {
					t.Errorf("%s changed: %v, was %v", k, now[k], v)
				}
			}
			// hooks: the existing events first, in their order, then the
			// new ones; existing groups unchanged and first.
			oldHooks, newHooks := old["hooks"].(map[string]any), now["hooks"].(map[string]any)
			hooksRaw := func(data []byte) []byte {
				var m map[string]json.RawMessage
				if err := json.Unmarshal(data, &m); err != nil {
					t.Fatal(err)
				}
				return m["hooks"]
			}
			gotOrder, oldOrder := jsonKeys(t, hooksRaw(data)), jsonKeys(t, hooksRaw([]byte(c.settings)))
			if len(gotOrder) < len(oldOrder) || !reflect.DeepEqual(gotOrder[:len(oldOrder)], oldOrder) {
				t.Errorf("hooks keys %v, want %v first", gotOrder, oldOrder)
			}
			for ev, groups := range oldHooks {
				got, _ := newHooks[ev].([]any)
				n := len(groups.([]any))
				if len(got) < n || !reflect.DeepEqual(got[:n], groups) {
					t.Errorf("hooks.%s: existing groups changed: %v, was %v", ev, got, groups)
				}
			}
			var command string
			for _, ev := range c.events {
				groups, _ := newHooks[ev].([]any)
				if want := c.preexisting[ev] + 1; len(groups) != want {
					t.Errorf("hooks.%s has %d groups, want %d", ev, len(groups), want)
					continue
				}
				last := groups[len(groups)-1]
				cmd, ok := turnbackHook(last, c.agent)
				if !ok {
					t.Errorf("hooks.%s: last group is not turnback's: %v", ev, last)
				}
				if command == "" {
					command = cmd
				} else if cmd != command {
					t.Errorf("hooks.%s runs %q, others %q", ev, cmd, command)
				}
				h := last.(map[string]any)["hooks"].([]any)[0].(map[string]any)
				if h["timeout"] != c.timeout {
					t.Errorf("hooks.%s timeout = %v, want %v", ev, h["timeout"], c.timeout)
				}
			}
			// Events turnback does not use are not added.
			for ev := range newHooks {
				if _, had := oldHooks[ev]; !had && !containsString(c.events, ev) {
					t.Errorf("unexpected event hooks.%s", ev)
				}
			}
			if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
				t.Errorf("settings mode changed: %v %v", fi.Mode(), err)
			}
			// No temporary file left (commands/ holds the slash commands).
			if leftovers, _ := filepath.Glob(filepath.Join(filepath.Dir(path), "*")); len(leftovers) != 2 || filepath.Base(leftovers[0]) != "commands" {
				t.Errorf("files beside the settings: %v", leftovers)
			}

			// Second run: nothing changed, byte-identical.
			r = e.ok("init", c.flag)
			if !strings.Contains(r.stdout, "nothing changed") {
				t.Errorf("second init:\n%s", r)
			}
			if again, _ := os.ReadFile(path); !bytes.Equal(again, data) {
				t.Errorf("second init changed the file:\n%s\nwas:\n%s", again, data)
			}
			// Also with turnback now found on PATH (a different command
			// line for the same hook).
			e.extra = []string{"PATH=" + filepath.Dir(e.bin) + string(os.PathListSeparator) + os.Getenv("PATH")}
			r = e.ok("init", c.flag)
			if !strings.Contains(r.stdout, "nothing changed") {
				t.Errorf("init with turnback on PATH:\n%s", r)
			}
			if again, _ := os.ReadFile(path); !bytes.Equal(again, data) {
				t.Errorf("init with turnback on PATH changed the file:\n%s", again)
			}
		})
	}
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// TestInitCreates: without a settings file, init creates it (and its
// directory), with -C or from the current directory.
func TestInitCreates(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		agent, flag, file string
		events            []string
		withC             bool
	}{
		{"claude", "--claude", ".claude/settings.json", []string{"UserPromptSubmit", "Stop", "SessionEnd"}, false},
		{"gemini", "--gemini", ".gemini/settings.json", []string{"BeforeAgent", "AfterAgent", "SessionEnd"}, true},
	} {
		t.Run(c.agent, func(t *testing.T) {
			t.Parallel()
			e := newHookEnv(t)
			var r cliResult
			if c.withC {
				r = e.exec(e.home, nil, "-C", e.dir, "init", c.flag)
			} else {
				r = e.exec("", nil, "init", c.flag)
			}
			path := filepath.Join(e.dir, filepath.FromSlash(c.file))
			if r.code != 0 || !strings.Contains(r.stdout, path) {
				t.Fatalf("init:\n%s", r)
			}
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			m := parseJSONObject(t, data)
			if keys := jsonKeys(t, data); !reflect.DeepEqual(keys, []string{"hooks"}) {
				t.Errorf("keys %v, want [hooks]", keys)
			}
			hooks := m["hooks"].(map[string]any)
			if len(hooks) != len(c.events) {
				t.Errorf("hooks: %v, want %v", hooks, c.events)
			}
			for _, ev := range c.events {
				groups, _ := hooks[ev].([]any)
				if len(groups) != 1 {
					t.Fatalf("hooks.%s = %v", ev, hooks[ev])
				}
				if _, ok := turnbackHook(groups[0], c.agent); !ok {
					t.Errorf("hooks.%s is not turnback's: %v", ev, groups[0])
				}
			}
			r = e.ok("init", c.flag)
			if !strings.Contains(r.stdout, "nothing changed") {
				t.Errorf("second init:\n%s", r)
			}
			if again, _ := os.ReadFile(path); !bytes.Equal(again, data) {
				t.Errorf("second init changed the file")
			}
			// --json: one document.
			r = e.ok("--json", "init", c.flag)
			var doc struct {
				Settings string `json:"settings"`
				Changed  *bool  `json:"changed"`
			}
			cliOneJSON(t, r.stdout, &doc)
			if doc.Settings != path || doc.Changed == nil || *doc.Changed {
				t.Errorf("init --json: %+v", doc)
			}
		})
	}
}

// TestInitMalformed: a settings file init cannot read as a JSON object
// with an object "hooks" of lists is reported (exit 1) and left
// byte-identical.
func TestInitMalformed(t *testing.T) {
	t.Parallel()
	bad := map[string]string{
		"truncated":      `{"permissions": {"allow": ["Bash(ls)"]}, "hooks": {"Stop": [`,
		"trailing-comma": "{\n  \"model\": \"x\",\n}\n",
		"not-object":     `["hooks"]`,
		"two-docs":       `{"a": 1} {"b": 2}`,
		"hooks-string":   `{"hooks": "turnback"}`,
		"event-object":   `{"hooks": {"Stop": {"command": "echo hi"}, "SessionEnd": {"command": "echo"}, "AfterAgent": {"command": "x"}, "UserPromptSubmit": 1, "BeforeAgent": 1}}`,
	}
	for _, agent := range []string{"claude", "gemini"} {
		for name, content := range bad {
			t.Run(agent+"/"+name, func(t *testing.T) {
				t.Parallel()
				e := newHookEnv(t)
				path := filepath.Join(e.dir, "."+agent, "settings.json")
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
					t.Fatal(err)
				}
				r := e.exec("", nil, "init", "--"+agent)
				if r.code != 1 {
					t.Errorf("want exit 1\n%s", r)
				}
				if r.stdout != "" {
					t.Errorf("stdout on failure:\n%s", r)
				}
				if !strings.Contains(r.stderr, path) || !strings.Contains(r.stderr, "untouched") {
					t.Errorf("stderr should name the file and say it was left untouched:\n%s", r)
				}
				if got, _ := os.ReadFile(path); string(got) != content {
					t.Errorf("file changed:\n%s", got)
				}
				if ents, _ := os.ReadDir(filepath.Dir(path)); len(ents) != 1 {
					t.Errorf("files beside the settings: %v", ents)
				}
			})
		}
	}
}

// TestInitFlags: init needs exactly one agent flag (exit 2), and says which.
func TestInitFlags(t *testing.T) {
	t.Parallel()
	e := newHookEnv(t)
	for _, args := range [][]string{{"init"}, {"init", "--claude", "--gemini"}, {"--json", "init"}} {
		r := e.exec("", nil, args...)
		if r.code != 2 {
			t.Errorf("want exit 2\n%s", r)
		}
		if !strings.Contains(r.stderr, "--claude, --gemini, --codex, --copilot, --cursor, --qwen or --opencode") && !strings.Contains(r.stderr, "one agent per init: run turnback init --claude, then turnback init --gemini") {
			t.Errorf("stderr should say which flags:\n%s", r)
		}
	}
	if ents, _ := os.ReadDir(e.dir); len(ents) != 0 {
		t.Errorf("init with bad flags created %v", ents)
	}
}
