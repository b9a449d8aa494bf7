//go:build unix

package cli

import (
	"encoding/json"
	"testing"

	"github.com/turnback/turnback/manifest/treetest"
	"github.com/turnback/turnback/watch/daemon"
)

// TestDaemonHookNotice: with a watch daemon holding the store, the prompt
// hook's snap runs in the daemon and still takes the notice (snap
// --take-notice), which the hook prints once.
func TestDaemonHookNotice(t *testing.T) {
	w := newDaemonWorld(t)
	treetest.PutAll(t, w.wt, map[string]string{"main.go": "package main\n"})
	payload := func(event, prompt string) string {
		b, _ := json.Marshal(map[string]string{"session_id": "s1", "cwd": w.wt, "hook_event_name": event, "prompt": prompt})
		return string(b)
	}
	hook := func(event, prompt, want string) {
		t.Helper()
		if so, se, code := w.e.execOut(payload(event, prompt), "hook", "claude"); code != 0 || so != want || se != "" {
			t.Fatalf("hook claude %s %q: exit %d, stdout %q, stderr %q; want stdout %q", event, prompt, code, so, se, want)
		}
	}
	hook("UserPromptSubmit", "change main", "")
	treetest.PutAll(t, w.wt, map[string]string{"main.go": "package main // changed\n"})
	hook("Stop", "", "")
	hook("UserPromptSubmit", "/undo", "")
	if _, se, code := w.cli("--session", "s1", "undo"); code != 0 {
		t.Fatalf("undo: %d %s", code, se)
	}
	hook("UserPromptSubmit", "and now?", `{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"turnback: since the last prompt the user reverted file changes with turnback:\n- undid turn 1: main.go\nThese files may no longer hold what you wrote or read: read them again before relying on them."}}`+"\n")
	hook("UserPromptSubmit", "again", "")
	if info, ok := daemon.Ping(w.store); !ok || info.Requests < 5 {
		t.Errorf("the daemon served %+v; want the hooks' commands among them", info)
	}
}
