package cli

// turnback mcp, driven as an agent drives it: the built binary started
// by the official SDK's client over stdio (CommandTransport), on a
// folder whose turns the CLI recorded.

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

var updateMCPGolden = flag.Bool("update-mcp-golden", false, "rewrite testdata/mcp/tools.golden from the server's tool list")

// mcpClient starts `turnback mcp` (with args before "mcp") in dir with
// e's environment and connects to it; the session closes (and the
// server exits) when the test ends.
func mcpClient(t *testing.T, e *cliEnv, dir string, args ...string) *sdk.ClientSession {
	t.Helper()
	cmd := exec.Command(e.bin, append(args, "mcp")...)
	cmd.Dir, cmd.Env = dir, e.environ()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	client := sdk.NewClient(&sdk.Implementation{Name: "turnback-test", Version: "v0"}, nil)
	cs, err := client.Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect to turnback mcp: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// mcpCall calls a tool; isErr says whether a tool error is wanted. It
// returns the structured result (nil for a tool error) and the text.
func mcpCall(t *testing.T, cs *sdk.ClientSession, isErr bool, name string, args map[string]any) (map[string]any, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s %v: protocol error: %v", name, args, err)
	}
	var text []string
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			text = append(text, tc.Text)
		}
	}
	joined := strings.Join(text, "\n")
	if res.IsError != isErr {
		t.Fatalf("%s %v: isError %v, want %v: %s", name, args, res.IsError, isErr, joined)
	}
	if isErr {
		return nil, joined
	}
	var out map[string]any
	data, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatalf("%s: structured content %s: %v", name, data, err)
	}
	return out, joined
}

// TestMCPTools: the tool list and input schemas are as the golden file
// says.
func TestMCPTools(t *testing.T) {
	e := newHookEnv(t)
	cs := mcpClient(t, e, e.dir)
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []map[string]any
	for _, tool := range res.Tools {
		got = append(got, map[string]any{"name": tool.Name, "inputSchema": tool.InputSchema})
	}
	data, err := json.MarshalIndent(got, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	data = append(data, '\n')
	golden := filepath.Join("..", "testdata", "mcp", "tools.golden")
	if *updateMCPGolden {
		if err := os.WriteFile(golden, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if string(data) != string(want) {
		t.Errorf("tools differ from %s (go test -run TestMCPTools -update-mcp-golden):\n%s", golden, data)
	}
}

// TestMCPUndo: two turns recorded with the CLI; turnback_turns and
// turnback_status report them, a conflict changes nothing,
// turnback_undo makes the folder byte-identical to before the second
// turn, turnback_redo brings it back, and bad arguments are tool errors
// after which the server still answers.
func TestMCPUndo(t *testing.T) {
	e := newHookEnv(t)
	e.write("a.txt", "one\n")
	e.write("keep.txt", "kept\n")
	e.ok("snap", "-m", "first")
	e.write("a.txt", "two\n")
	e.write("b.txt", "bee\n")
	e.ok("end")
	beforeSecond := e.tree()
	e.ok("snap", "-m", "second")
	e.write("b.txt", "bee two\n")
	e.rm("a.txt")
	e.mkdir("c")
	e.write("c/d.txt", "dee\n")
	e.ok("end")
	afterSecond := e.tree()

	cs := mcpClient(t, e, e.dir)

	turns, _ := mcpCall(t, cs, false, "turnback_turns", nil)
	if turns["session"] != "default" || turns["folder"] != e.dir {
		t.Errorf("turns: session/folder %v %v", turns["session"], turns["folder"])
	}
	list, _ := turns["turns"].([]any)
	if len(list) != 2 {
		t.Fatalf("turns: %v", turns)
	}
	for i, want := range []struct {
		n                        float64
		msg                      string
		added, modified, deleted float64
	}{{2, "second", 1, 1, 1}, {1, "first", 1, 1, 0}} {
		got := list[i].(map[string]any)
		if got["turn"] != want.n || got["message"] != want.msg || got["added"] != want.added || got["modified"] != want.modified || got["deleted"] != want.deleted || got["undone"] != nil {
			t.Errorf("turn %d: %v", i, got)
		}
	}

	// A turn has one shape: turnback_turns gives log --json's document.
	var logDoc struct {
		Turns []map[string]any `json:"turns"`
	}
	e.okJSON(&logDoc, "log", "--json")
	for i := range list {
		if i >= len(logDoc.Turns) || !reflect.DeepEqual(list[i], logDoc.Turns[i]) {
			t.Errorf("turn %d: turnback_turns gives %v, log --json %v", i, list[i], logDoc.Turns)
		}
	}

	status, _ := mcpCall(t, cs, false, "turnback_status", nil)
	if ch, _ := status["changes"].([]any); len(ch) != 0 {
		t.Errorf("status after end: %v", status)
	}
	e.write("new.txt", "mine\n")
	status, _ = mcpCall(t, cs, false, "turnback_status", nil)
	if ch, _ := status["changes"].([]any); len(ch) != 1 || ch[0].(map[string]any)["path"] != "new.txt" || ch[0].(map[string]any)["change"] != "added" {
		t.Errorf("status with new.txt: %v", status)
	}
	e.rm("new.txt")

	show, _ := mcpCall(t, cs, false, "turnback_show", map[string]any{"turn": 2})
	var shown []string
	for _, c := range show["changes"].([]any) {
		m := c.(map[string]any)
		shown = append(shown, m["change"].(string)+" "+m["path"].(string))
	}
	if got := strings.Join(shown, ", "); got != "deleted a.txt, modified b.txt, added c, added c/d.txt" {
		t.Errorf("show turn 2: %s", got)
	}
	diff, _ := mcpCall(t, cs, false, "turnback_diff", map[string]any{"turn": 2})
	files := diff["files"].([]any)
	if len(files) != 4 || !strings.Contains(files[1].(map[string]any)["diff"].(string), "-bee\n+bee two\n") {
		t.Errorf("diff turn 2: %v", diff)
	}

	// A conflict: b.txt edited after the turn. Nothing changes.
	e.write("b.txt", "my edit\n")
	edited := e.tree()
	_, text := mcpCall(t, cs, true, "turnback_undo", nil)
	if !strings.Contains(text, "nothing was changed") || !strings.Contains(text, "b.txt") {
		t.Errorf("conflict: %s", text)
	}
	e.same("after the conflict", edited)
	e.write("b.txt", "bee two\n")

	// A dry run over the conflict says it would stop, changing nothing.
	e.write("b.txt", "my edit\n")
	dry, _ := mcpCall(t, cs, false, "turnback_undo", map[string]any{"dry_run": true})
	if dry["dry_run"] != true || dry["stopped"] != true || fmt.Sprint(dry["conflicts"]) != "[map[path:b.txt reason:modified since]]" || !strings.Contains(dry["summary"].(string), "would stop, changing nothing") {
		t.Errorf("dry run over a conflict: %v", dry)
	}
	e.same("after the dry run over the conflict", edited)
	e.write("b.txt", "bee two\n")
	// A dry run lists what the undo would do; nothing changes.
	dry, _ = mcpCall(t, cs, false, "turnback_undo", map[string]any{"dry_run": true})
	if dry["dry_run"] != true || dry["stopped"] != nil || fmt.Sprint(dry["restored"], dry["deleted"], dry["created"]) != "[b.txt] [c c/d.txt] [a.txt]" || dry["checkpoint"] != nil {
		t.Errorf("dry run: %v", dry)
	}
	e.same("after the dry run", afterSecond)
	// A partial undo: c/ only; the turn stays, with its other changes.
	part, _ := mcpCall(t, cs, false, "turnback_undo", map[string]any{"paths": []string{"c"}})
	if fmt.Sprint(part["paths"], part["deleted"], part["restored"], part["created"]) != "[c] [c c/d.txt] [] []" {
		t.Errorf("undo of c: %v", part)
	}
	e.same("after undoing c", afterSecond.Without("c"))
	if _, text := mcpCall(t, cs, true, "turnback_undo", map[string]any{"paths": []string{"../x"}}); !strings.Contains(text, "not inside the work tree") {
		t.Errorf("undo of ../x: %s", text)
	}
	mcpCall(t, cs, false, "turnback_redo", nil)
	e.same("after redoing c", afterSecond)

	undo, _ := mcpCall(t, cs, false, "turnback_undo", map[string]any{"count": 1})
	if undo["turns"] != 1.0 || undo["session"] != "default" || undo["checkpoint"] == "" {
		t.Errorf("undo: %v", undo)
	}
	for key, want := range map[string]string{"restored": "b.txt", "deleted": "c c/d.txt", "created": "a.txt"} {
		var got []string
		for _, p := range undo[key].([]any) {
			got = append(got, p.(string))
		}
		if strings.Join(got, " ") != want {
			t.Errorf("undo %s: %v, want %s", key, got, want)
		}
	}
	e.same("after turnback_undo", beforeSecond)

	turns, _ = mcpCall(t, cs, false, "turnback_turns", nil)
	if l := turns["turns"].([]any); len(l) != 2 || l[0].(map[string]any)["undone"] != true || l[1].(map[string]any)["undone"] != nil {
		t.Errorf("turns after undo: %v", turns)
	}

	redo, _ := mcpCall(t, cs, false, "turnback_redo", nil)
	if redo["turns"] != 1.0 {
		t.Errorf("redo: %v", redo)
	}
	e.same("after turnback_redo", afterSecond)
	redo, _ = mcpCall(t, cs, false, "turnback_redo", nil)
	if redo["turns"] != 0.0 || !strings.Contains(redo["summary"].(string), "nothing to redo") {
		t.Errorf("second redo: %v", redo)
	}

	// Bad arguments: tool errors, nothing changed, and the server lives on.
	for _, c := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"turnback_undo", map[string]any{"count": -1}, "count"},
		{"turnback_undo", map[string]any{"count": 0.5}, "count"},
		{"turnback_redo", map[string]any{"count": 100000}, "count"},
		{"turnback_undo", map[string]any{"session": "nope"}, `unknown session "nope"`},
		{"turnback_turns", map[string]any{"session": "bad name"}, "session name"},
		{"turnback_undo", map[string]any{"folder": filepath.Join(e.base, "missing")}, "does not exist"},
		{"turnback_status", map[string]any{"folder": "missing"}, "does not exist"},
		{"turnback_status", map[string]any{"folder": "/"}, "refusing a work tree that is / or the home directory"},
		{"turnback_turns", map[string]any{"folder": e.home}, "refusing a work tree that is / or the home directory"},
		{"turnback_undo", map[string]any{"folder": e.home}, "refusing a work tree that is / or the home directory"},
		{"turnback_redo", map[string]any{"folder": "/"}, "refusing a work tree that is / or the home directory"},
		{"turnback_undo", map[string]any{"bogus": 1}, "bogus"},
		{"turnback_show", map[string]any{"turn": 9}, "no turn 9"},
		{"turnback_show", map[string]any{"id": "ffffffff"}, "unknown snapshot id"},
		{"turnback_diff", map[string]any{"to": "abc"}, "to needs from"},
	} {
		_, text := mcpCall(t, cs, true, c.tool, c.args)
		if !strings.Contains(text, c.want) {
			t.Errorf("%s %v: %q does not say %q", c.tool, c.args, text, c.want)
		}
	}
	e.same("after the bad calls", afterSecond)
	if l, _ := mcpCall(t, cs, false, "turnback_turns", map[string]any{"limit": 1}); len(l["turns"].([]any)) != 1 || l["more"] != 1.0 {
		t.Errorf("turns limit 1: %v", l)
	}
}

// TestMCPFolderAndSession: a server started elsewhere works on the
// folder argument, finds the session of the newest turn (an agent's)
// as undo does, and a store a watch daemon holds is said so.
func TestMCPFolderAndSession(t *testing.T) {
	e := newHookEnv(t)
	e.write("a.txt", "one\n")
	e.ok("--session", "conv-1234", "--agent", "claude", "snap", "-m", "agent turn")
	e.write("a.txt", "two\n")
	e.ok("--session", "conv-1234", "end")
	cs := mcpClient(t, e, e.home)
	turns, _ := mcpCall(t, cs, false, "turnback_turns", map[string]any{"folder": e.dir})
	if turns["session"] != "conv-1234" || turns["agent"] != "claude" || len(turns["turns"].([]any)) != 1 {
		t.Errorf("turns: %v", turns)
	}
	// The default session has no turns: status takes the agent's too
	// (as the CLI's does), and so does a prefix.
	if st, _ := mcpCall(t, cs, false, "turnback_status", map[string]any{"folder": e.dir}); st["session"] != "conv-1234" {
		t.Errorf("status: %v", st)
	}
	if st, _ := mcpCall(t, cs, false, "turnback_status", map[string]any{"folder": e.dir, "session": "default"}); st["session"] != "default" {
		t.Errorf("status of default: %v", st)
	}
	undo, _ := mcpCall(t, cs, false, "turnback_undo", map[string]any{"folder": e.dir, "session": "conv"})
	if undo["session"] != "conv-1234" || undo["turns"] != 1.0 {
		t.Errorf("undo: %v", undo)
	}
	if got := string(e.read("a.txt")); got != "one\n" {
		t.Errorf("a.txt after undo: %q", got)
	}
	// A folder without a store: nothing to undo, and no store made.
	empty := filepath.Join(e.base, "empty")
	if err := os.Mkdir(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, text := mcpCall(t, cs, true, "turnback_undo", map[string]any{"folder": empty}); !strings.Contains(text, "no turnback store") {
		t.Errorf("undo in a folder without a store: %s", text)
	}
	if st, _ := mcpCall(t, cs, false, "turnback_turns", map[string]any{"folder": empty}); len(st["turns"].([]any)) != 0 {
		t.Errorf("turns in a folder without a store: %v", st)
	}
	if entries, _ := os.ReadDir(filepath.Join(e.xdg, "turnback")); len(entries) != 1 {
		t.Errorf("stores made: %v", entries)
	}
	// A watch daemon serves the folder: the tools run in it (turnback.Open
	// returns a Repo the daemon serves), sessions picked as without it.
	e.ok("watch", "--detach")
	t.Cleanup(func() { e.run("watch", "--stop") })
	if redo, _ := mcpCall(t, cs, false, "turnback_redo", map[string]any{"folder": e.dir, "session": "conv"}); redo["session"] != "conv-1234" || redo["turns"] != 1.0 {
		t.Errorf("redo through the daemon: %v", redo)
	}
	if got := string(e.read("a.txt")); got != "two\n" {
		t.Errorf("a.txt after redo through the daemon: %q", got)
	}
	if turns, _ := mcpCall(t, cs, false, "turnback_turns", map[string]any{"folder": e.dir}); turns["session"] != "conv-1234" || len(turns["turns"].([]any)) != 1 {
		t.Errorf("turns through the daemon: %v", turns)
	}
	if st, _ := mcpCall(t, cs, false, "turnback_status", map[string]any{"folder": e.dir}); st["session"] != "conv-1234" {
		t.Errorf("status through the daemon: %v", st)
	}
	e.ok("watch", "--stop")
	if undo, _ := mcpCall(t, cs, false, "turnback_undo", map[string]any{"folder": e.dir, "session": "conv"}); undo["turns"] != 1.0 {
		t.Errorf("undo after the daemon stopped: %v", undo)
	}
	if got := string(e.read("a.txt")); got != "one\n" {
		t.Errorf("a.txt after undo: %q", got)
	}
}
