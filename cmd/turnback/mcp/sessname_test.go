package mcp

import (
	"context"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/turnback/turnback"
)

// TestSessionNames: a session name the rule refuses, as a tool's
// argument or as the server's own (TURNBACK_SESSION), is an error
// result saying so; nothing is recorded.
func TestSessionNames(t *testing.T) {
	ctx := context.Background()
	base, dir, store := testFolder(t, "")
	connect := func(session string) *sdk.ClientSession {
		return testConnect(t, Config{Cwd: base, Dir: "work", Store: store, Session: session,
			Getenv: func(string) string { return "" }})
	}
	refused := func(cs *sdk.ClientSession, tool string, args map[string]any) {
		t.Helper()
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: tool, Arguments: args})
		if err != nil || !res.IsError || len(res.Content) == 0 ||
			!strings.Contains(res.Content[0].(*sdk.TextContent).Text, "invalid session name") {
			t.Fatalf("%s %v: %v %+v", tool, args, err, res)
		}
	}
	cs := connect("")
	for _, name := range []string{"..", ".", `a\b`, "a\u0085"} {
		for _, tool := range []string{"turnback_undo", "turnback_redo", "turnback_turns", "turnback_status"} {
			refused(cs, tool, map[string]any{"session": name})
		}
	}
	refused(connect(".."), "turnback_undo", nil)
	r, err := turnback.Open(ctx, dir, turnback.Options{Store: store})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	list, err := r.Sessions(ctx)
	if err != nil || len(list) != 1 || list[0].Name != "default" {
		t.Fatalf("sessions: %+v %v", list, err)
	}
}
