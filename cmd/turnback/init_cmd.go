package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/turnback/turnback/cmd/turnback/termout"
)

// agentSettings describes where and how each agent keeps its hooks.
var agentSettings = map[string]struct {
	file   string
	events []string
}{
	"claude": {file: filepath.Join(".claude", "settings.json"), events: []string{"UserPromptSubmit", "Stop", "SessionEnd"}},
	"gemini": {file: filepath.Join(".gemini", "settings.json"), events: []string{"BeforeAgent", "AfterAgent", "SessionEnd"}},
}

func newInitCmd(g *globals) *cobra.Command {
	var claude, gemini bool
	cmd := &cobra.Command{
		Use:   "init --claude | --gemini",
		Short: "Add turnback's hooks to an agent's project settings",
		Long: `init adds the hooks that make an agent snap before every turn and end after it
to the project's settings file: .claude/settings.json for Claude Code,
.gemini/settings.json for Gemini CLI (in the folder, -C or the current
directory). It merges with what is there: other hooks and keys are kept,
running it twice changes nothing, and a settings file that is not valid JSON
is reported and left untouched.

Then, in the agent: ask for a change, and "turnback --session <id> undo"
(or plain "turnback undo" with the session id from "turnback log") reverts it.`,
		Example: `  turnback init --claude
  turnback -C ~/src/app init --gemini`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if claude == gemini {
				return usageError{errors.New("say which agent: --claude or --gemini")}
			}
			agent := "claude"
			if gemini {
				agent = "gemini"
			}
			dir := g.dir
			if dir == "" {
				wd, err := g.getwd()
				if err != nil {
					return err
				}
				dir = wd
			}
			path := filepath.Join(dir, agentSettings[agent].file)
			changed, err := installHooks(path, agent, hookCommand(agent))
			if err != nil {
				return err
			}
			if g.json {
				termout.WriteJSON(g.stdout, map[string]any{"settings": path, "changed": changed})
				return nil
			}
			if changed {
				fmt.Fprintf(g.stdout, "added turnback hooks for %s to %s\n", agent, termout.QuotePath(path))
			} else {
				fmt.Fprintf(g.stdout, "%s already has turnback's hooks; nothing changed\n", termout.QuotePath(path))
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&claude, "claude", false, "Claude Code (.claude/settings.json)")
	cmd.Flags().BoolVar(&gemini, "gemini", false, "Gemini CLI (.gemini/settings.json)")
	return cmd
}

// hookCommand is the command line the agent runs: plain "turnback" when
// that is on PATH, otherwise this executable's absolute path.
func hookCommand(agent string) string {
	bin := "turnback"
	if _, err := exec.LookPath("turnback"); err != nil {
		if exe, err := os.Executable(); err == nil {
			bin = exe
			if strings.ContainsAny(exe, " '\"") {
				bin = "'" + strings.ReplaceAll(exe, "'", `'\''`) + "'"
			}
		}
	}
	return bin + " hook " + agent
}

// installHooks merges turnback's hook for every event of agent into the
// settings file at path and reports whether the file changed.
func installHooks(path, agent, command string) (bool, error) {
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
	for _, ev := range agentSettings[agent].events {
		var groups []json.RawMessage
		if raw, ok := hooks.get(ev); ok {
			if err := json.Unmarshal(raw, &groups); err != nil {
				return false, fmt.Errorf("turnback init: %s: hooks.%s is not a list (%v); left untouched", path, ev, err)
			}
		}
		if hasTurnbackHook(groups, agent, command) {
			continue
		}
		entry := hookEntry{Type: "command", Command: command, Timeout: 30}
		if agent == "gemini" {
			entry.Name = "turnback"
			entry.Timeout = 30000 // milliseconds
		}
		group, _ := json.Marshal(map[string]any{"hooks": []hookEntry{entry}})
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
