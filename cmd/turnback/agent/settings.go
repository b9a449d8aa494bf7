package agent

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Command is the command line the agent runs: plain "turnback" when that
// is on PATH, otherwise this executable's absolute path.
func (a *Agent) Command() string {
	bin := "turnback"
	if _, err := exec.LookPath("turnback"); err != nil {
		if exe, err := os.Executable(); err == nil {
			bin = exe
			if strings.ContainsAny(exe, " '\"") {
				bin = "'" + strings.ReplaceAll(exe, "'", `'\''`) + "'"
			}
		}
	}
	return bin + " hook " + a.Name
}

// Install merges turnback's hook (running command) for every event of
// the agent into its settings file in dir, and returns the file's path
// and whether it changed. A settings file that is not a JSON object, or
// whose hooks are not as the agent spells them, is left untouched.
func (a *Agent) Install(dir, command string) (path string, changed bool, err error) {
	path = filepath.Join(dir, filepath.FromSlash(a.Settings))
	changed, err = a.install(path, command)
	return path, changed, err
}

func (a *Agent) install(path, command string) (bool, error) {
	data, err := os.ReadFile(path)
	mode := os.FileMode(0o644)
	switch {
	case errors.Is(err, os.ErrNotExist):
		data = []byte("{}")
	case err != nil:
		return false, fmt.Errorf("turnback init: %w", err)
	default:
		if fi, err := os.Stat(path); err == nil {
			mode = fi.Mode().Perm()
		}
	}
	if len(bytes.TrimSpace(data)) == 0 {
		data = []byte("{}")
	}
	settings, err := parseObject(data)
	if err != nil {
		return false, fmt.Errorf("turnback init: %s is not a valid JSON object (%v); fix it or move it aside, it was left untouched", path, err)
	}
	hooks := &object{vals: map[string]json.RawMessage{}}
	if raw, ok := settings.get("hooks"); ok {
		if hooks, err = parseObject(raw); err != nil {
			return false, fmt.Errorf("turnback init: %s: \"hooks\" is not a JSON object (%v); left untouched", path, err)
		}
	}
	changed := false
	for _, ev := range a.Events {
		var groups []json.RawMessage
		if raw, ok := hooks.get(ev); ok {
			if err := json.Unmarshal(raw, &groups); err != nil {
				return false, fmt.Errorf("turnback init: %s: hooks.%s is not a list (%v); left untouched", path, ev, err)
			}
		}
		if hasTurnbackHook(groups, a.Name, command) {
			continue
		}
		group, _ := json.Marshal(map[string]any{"hooks": []hookEntry{a.entry(command)}})
		groups = append(groups, group)
		raw, _ := json.Marshal(groups)
		hooks.set(ev, raw)
		changed = true
	}
	if !changed {
		return false, nil
	}
	raw, _ := hooks.MarshalJSON()
	settings.set("hooks", raw)
	compact, _ := settings.MarshalJSON()
	var out bytes.Buffer
	if err := json.Indent(&out, compact, "", "  "); err != nil {
		return false, fmt.Errorf("turnback init: %w", err)
	}
	out.WriteByte('\n')
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return false, fmt.Errorf("turnback init: %w", err)
	}
	tmp := path + ".turnback-tmp"
	if err := os.WriteFile(tmp, out.Bytes(), mode); err != nil {
		return false, fmt.Errorf("turnback init: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return false, fmt.Errorf("turnback init: %w", err)
	}
	return true, nil
}

// hookEntry is one hook as the agents' settings files spell it.
type hookEntry struct {
	Name    string `json:"name,omitempty"`
	Type    string `json:"type"`
	Command string `json:"command"`
	Timeout int    `json:"timeout"`
}

// hasTurnbackHook reports whether any hook in groups already runs
// command, or another turnback's "hook <agent>".
func hasTurnbackHook(groups []json.RawMessage, agent, command string) bool {
	for _, g := range groups {
		var grp struct {
			Hooks []struct {
				Command string `json:"command"`
			} `json:"hooks"`
		}
		if json.Unmarshal(g, &grp) != nil {
			continue
		}
		for _, h := range grp.Hooks {
			c := strings.TrimSpace(h.Command)
			if c == command || (strings.Contains(c, "turnback") && strings.HasSuffix(c, " hook "+agent)) {
				return true
			}
		}
	}
	return false
}
