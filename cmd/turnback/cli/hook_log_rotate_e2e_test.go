package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHookLogRotatedStoreStillOpens: hooks that fail before a folder's
// store exists log into the store folder to be. Once that log has
// rotated (hook.log.1 beside hook.log), the folder must still become
// the store when a hook or a command first succeeds.
func TestHookLogRotatedStoreStillOpens(t *testing.T) {
	t.Parallel()
	e := newDirEnv(t, "work")
	e.write("a.txt", "a\n")
	bad := e.with("TURNBACK_SIZE_LIMIT=bogus")
	prompt := hookPayload(t, "claude_user_prompt_submit.json", e.dir)
	bad.hook("claude", prompt, 1)
	logs, _ := filepath.Glob(filepath.Join(e.xdg, "turnback", "*", "hook.log"))
	if len(logs) != 1 {
		t.Fatalf("want one hook.log under %s, found %v", e.xdg, logs)
	}
	f, err := os.OpenFile(logs[0], os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.WriteString(strings.Repeat("x", 1<<20) + "\n") // as a thousand failures would
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
	bad.hook("claude", prompt, 1)
	if _, err := os.Stat(logs[0] + ".1"); err != nil {
		t.Fatalf("the log did not rotate: %v", err)
	}
	e.hook("claude", prompt, 0)
	if _, err := os.Stat(filepath.Join(filepath.Dir(logs[0]), "turnback-store.json")); err != nil {
		t.Fatalf("no store after the hook: %v", err)
	}
	if r := e.ok("status"); !strings.HasPrefix(r.stdout, "no changes since ") {
		t.Fatalf("status after the hook:\n%v", r)
	}
}
