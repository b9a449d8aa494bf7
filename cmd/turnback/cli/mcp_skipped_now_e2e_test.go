package cli

import (
	"fmt"
	"strings"
	"testing"
)

// TestMCPSkippedNow: src/main.c is captured by the snap, then a tool
// writes src/CACHEDIR.TAG, so src/ is skipped now. The MCP tools that
// list the folder's changes or a turn's (turnback_status, _show,
// _diff) rightly leave src/main.c out, but must say why, as status
// --json does: its "skipped_now", src/ and the marker. Before the
// turn ends (the folder now) and after (the turn's two states, which
// do not name the marker).
func TestMCPSkippedNow(t *testing.T) {
	e := newHookEnv(t)
	e.write("a.txt", "a\n")
	e.write("src/main.c", "int main(void) { return 0; }\n")
	e.ok("snap", "-m", "the turn")
	e.write("src/CACHEDIR.TAG", e2eCacheDirTag)
	e.write("src/main.c", "int main(void) { return 1; }\n")
	e.write("a.txt", "a2\n")
	cs := mcpClient(t, e, e.dir)

	var st map[string]any
	e.okJSON(&st, "status")
	now := fmt.Sprint(st["skipped_now"])
	if !strings.Contains(now, "evidence:src/CACHEDIR.TAG path:src") {
		t.Fatalf("status --json: skipped_now = %s", now)
	}
	const stored = "[map[dir:true path:src reason:generated rule:evidence]]"
	check := func(want, tool, list string, args map[string]any) {
		t.Helper()
		out, _ := mcpCall(t, cs, false, tool, args)
		if got := fmt.Sprint(out["skipped_now"]); got != want {
			t.Errorf("%s %v: skipped_now = %s, want %s", tool, args, got, want)
		}
		items, _ := out[list].([]any)
		if len(items) != 1 || strings.HasPrefix(fmt.Sprint(items[0].(map[string]any)["path"]), "src") {
			t.Errorf("%s %v: %s = %v, want a.txt only", tool, args, list, items)
		}
	}
	check(now, "turnback_status", "changes", nil)
	check(now, "turnback_show", "changes", nil) // the open turn: to the folder now
	check(now, "turnback_diff", "files", nil)
	e.ok("end")
	check(stored, "turnback_show", "changes", map[string]any{"turn": 1})
	check(stored, "turnback_diff", "files", map[string]any{"turn": 1})
	check(stored, "turnback_diff", "files", map[string]any{"from": "@1^", "to": "@1"})
	check(now, "turnback_diff", "files", map[string]any{"from": "@1^"})
}
