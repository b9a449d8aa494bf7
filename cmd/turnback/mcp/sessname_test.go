package mcp

import (
	"context"
	"os"
	"path/filepath"
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
	base := t.TempDir()
	dir, store := filepath.Join(base, "work"), filepath.Join(base, "store")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	repo, err := turnback.Open(ctx, dir, turnback.Options{Store: store})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := repo.Snap(ctx, ""); err != nil {
		t.Fatal(err)
	}
	repo.Close()
	connect := func(session string) *sdk.ClientSession {
		srv, err := NewServer(Config{Cwd: base, Dir: "work", Store: store, Session: session,
			Getenv: func(string) string { return "" }})
		if err != nil {
			t.Fatal(err)
		}
		st, ct := sdk.NewInMemoryTransports()
		ss, err := srv.Connect(ctx, st, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ss.Close() })
		cs, err := sdk.NewClient(&sdk.Implementation{Name: "t"}, nil).Connect(ctx, ct, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close() })
		return cs
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
