package cli

// Issue 30 item 7: turnback mcp answers a line that is not a request
// with JSON-RPC's error and goes on serving; at the end of its input it
// answers the calls it read before exiting.

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// TestMCPBadInput pipes lines into the built binary: requests before
// and after a line that is not JSON, one whose id is an array, a batch,
// a wrong version, a request that is not an object, blank lines; then
// the input ends right after two calls. Every error line is checked
// byte for byte, every call is answered once, and it exits 0.
func TestMCPBadInput(t *testing.T) {
	t.Parallel()
	e := newHookEnv(t)
	e.write("a.txt", "one\n")
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
		`not json`,
		`{"jsonrpc":"2.0","id":[1],"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`,
		`[{"jsonrpc":"2.0","id":9,"method":"ping"}]`,
		`{"jsonrpc":"1.0","id":"x","method":"ping"}`,
		`{"jsonrpc":"2.0","id":7,"method":"ping"`,
		`42`,
		``,
		"  \r",
		`{"jsonrpc":"2.0","id":"s","method":"tools/call","params":{"name":"turnback_turns","arguments":{}}}`,
		`{"jsonrpc":"2.0","id":4,"method":"ping"}`,
	}, "\n") + "\n"
	r := e.exec(e.dir, []byte(in), "mcp")
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("turnback mcp: %v", r)
	}
	lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
	wantErrors := []string{
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error: the line is not JSON"}}`,
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request: the id must be a string, a number or null"}}`,
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request: the id must be a string, a number or null"}}`,
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request: batches are not supported"}}`,
		`{"jsonrpc":"2.0","id":"x","error":{"code":-32600,"message":"invalid request: invalid message version tag \"1.0\"; expected \"2.0\""}}`,
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error: the line is not JSON"}}`,
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request: a request is a JSON object"}}`,
	}
	var errs []string
	answered := map[string]map[string]any{}
	for _, l := range lines {
		var doc map[string]any
		if err := json.Unmarshal([]byte(l), &doc); err != nil {
			t.Fatalf("not a JSON line: %q\n%s", l, r.stdout)
		}
		if doc["error"] != nil && (doc["id"] == nil || doc["id"] == "x") {
			errs = append(errs, l)
			continue
		}
		id, _ := json.Marshal(doc["id"])
		if answered[string(id)] != nil {
			t.Errorf("id %s answered twice:\n%s", id, r.stdout)
		}
		answered[string(id)] = doc
	}
	slices.Sort(errs)
	slices.Sort(wantErrors)
	if !slices.Equal(errs, wantErrors) {
		t.Errorf("error lines:\n%s\nwant:\n%s", strings.Join(errs, "\n"), strings.Join(wantErrors, "\n"))
	}
	if len(answered) != 4 || answered["1"]["result"] == nil || answered["2"]["result"] == nil || answered[`"s"`]["result"] == nil {
		t.Errorf("answers: %v\n%s", answered, r.stdout)
	}
	if !slices.Contains(lines, `{"jsonrpc":"2.0","id":4,"result":{}}`) {
		t.Errorf("no answer to the last ping:\n%s", r.stdout)
	}
	if tools := answered["2"]["result"].(map[string]any)["tools"]; len(tools.([]any)) < 5 {
		t.Errorf("tools/list: %v", tools)
	}
}
