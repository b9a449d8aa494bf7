//go:build unix

package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/turnback/turnback/manifest/treetest"
	"github.com/turnback/turnback/watch/daemon"
)

// TestDaemonOwnCommand: with a watch daemon holding the store, an own
// command (Claude's /undo as its command file runs it, Codex's typed
// /undo that its hook carries out) runs in the daemon and still reports
// a conflict on stdout with exit 0.
func TestDaemonOwnCommand(t *testing.T) {
	w := newDaemonWorld(t)
	treetest.PutAll(t, w.wt, map[string]string{"main.go": "package main\n"})
	payload := func(event, prompt string) string {
		b, _ := json.Marshal(map[string]string{"session_id": "s1", "cwd": w.wt, "hook_event_name": event, "prompt": prompt})
		return string(b)
	}
	w.e.execOut(payload("UserPromptSubmit", "change main"), "hook", "claude")
	treetest.PutAll(t, w.wt, map[string]string{"main.go": "package main // the agent's\n"})
	w.e.execOut(payload("Stop", ""), "hook", "claude")
	treetest.PutAll(t, w.wt, map[string]string{"main.go": "package main // mine\n"})

	so, se, code := w.cli("--agent", "claude", "--session", "s1", "undo")
	if code != 0 || se != "" || !strings.HasPrefix(so, "/undo changed nothing: this file was edited after the turn (by you or a program)") ||
		!strings.Contains(so, "  /undo --force   undo anyway") {
		t.Errorf("/undo through the daemon: exit %d\nstdout:\n%s\nstderr:\n%s", code, so, se)
	}
	so, se, code = w.e.execOut(payload("UserPromptSubmit", "/undo"), "hook", "codex")
	if code != 0 || !strings.Contains(so, `/undo changed nothing: this file was edited after the turn`) {
		t.Errorf("codex /undo through the daemon: exit %d\nstdout:\n%s\nstderr:\n%s", code, so, se)
	}
	if info, ok := daemon.Ping(w.store); !ok || info.Requests < 3 {
		t.Errorf("the daemon served %+v; want the commands among them", info)
	}
}
