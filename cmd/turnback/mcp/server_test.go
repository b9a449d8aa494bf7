package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/turnback/turnback"
)

// TestDescribe: the texts the model reads for the errors it can act on.
func TestDescribe(t *testing.T) {
	s := &server{c: Config{Getenv: func(k string) string {
		if k == "TURNBACK_TEST_NOW" {
			return "2026-11-22T10:20:00Z"
		}
		return ""
	}}}
	res := &turnback.RestoreResult{Conflicts: []turnback.PathNote{{Path: "a.txt"}, {Path: "evil\n\x1b[2J.txt"}}}
	for _, c := range []struct {
		err  error
		want string
	}{
		{&turnback.ConflictError{Result: res}, `turnback: conflict: nothing was changed: 2 paths were edited since: a.txt, "evil\n\033[2J.txt"; read them and ask the user`},
		{&turnback.ConflictError{Result: &turnback.RestoreResult{Conflicts: res.Conflicts[:1]}}, "1 path was edited since: a.txt;"},
		{fmt.Errorf("open: %w", turnback.ErrBusy), "; try again when it is done"},
		{fmt.Errorf("undo: %w", turnback.ErrDaemonLost), "the outcome is not known: the next call finishes or rolls back"},
		{&turnback.AmbiguousSessionError{Name: "4f", Sessions: []turnback.SessionInfo{{Name: "4f1"}, {Name: "4f2"}}}, "session 4f is ambiguous: 2 sessions start with it"},
		{&turnback.AmbiguousSessionError{Sessions: []turnback.SessionInfo{{Name: "a"}, {Name: "b"}}}, "name one with the session argument"},
		{errors.New("count must be 1 to 1000, got 0"), "turnback: count must be"},
	} {
		if got := s.describe(c.err).Error(); !strings.Contains(got, c.want) {
			t.Errorf("%v: %q does not hold %q", c.err, got, c.want)
		}
	}
	if s.describe(nil) != nil {
		t.Error("describe(nil) is not nil")
	}
}

// TestServeInMemory: a turn recorded through the root API, whose paths
// have hostile names, is listed and shown with every name exact, and
// undone; the server runs in this process on the SDK's in-memory
// transport.
func TestServeInMemory(t *testing.T) {
	ctx := context.Background()
	names := []string{"new\nline.txt", "quote\".txt", "café.txt"}
	base, dir, store := testFolder(t, "hostile\x1b[2J", names...)

	// No wait for a busy store: calls at once must not contend (below).
	env := func(k string) string { return map[string]string{"TURNBACK_LOCK_WAIT": "0"}[k] }
	cs := testConnect(t, Config{Cwd: base, Dir: "work", Store: store, Getenv: env})
	call := func(name string, args map[string]any, out any) {
		t.Helper()
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: args})
		if err != nil || res.IsError {
			t.Fatalf("%s: %v %+v", name, err, res)
		}
		data, _ := json.Marshal(res.StructuredContent)
		if err := json.Unmarshal(data, out); err != nil {
			t.Fatal(err)
		}
	}
	var turns TurnsOut
	call("turnback_turns", nil, &turns)
	if len(turns.Turns) != 1 || turns.Turns[0].Message != "hostile\x1b[2J" || turns.Turns[0].Added != 3 || turns.Folder != dir {
		t.Errorf("turns: %+v", turns)
	}
	var show ShowOut
	call("turnback_show", map[string]any{"turn": 1}, &show)
	var got []string
	for _, c := range show.Changes {
		got = append(got, c.What+" "+c.Path)
	}
	if strings.Join(got, "|") != "added café.txt|added new\nline.txt|added quote\".txt" {
		t.Errorf("show: %q", got)
	}
	// Calls sent at once run one after the other, none waiting for a
	// store the process itself holds.
	var wg sync.WaitGroup
	for i := range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tool := []string{"turnback_status", "turnback_turns", "turnback_show"}[i%3]
			res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: tool})
			if err != nil || res.IsError {
				t.Errorf("%s at once: %v %+v", tool, err, res)
			}
		}()
	}
	wg.Wait()
	var undo RestoreOut
	call("turnback_undo", nil, &undo)
	if strings.Join(undo.Deleted, "|") != "café.txt|new\nline.txt|quote\".txt" || undo.Turns != 1 {
		t.Errorf("undo: %+v", undo)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("after undo: %v", entries)
	}
}
