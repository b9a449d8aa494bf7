//go:build unix

package turnback_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/turnback/turnback/watch/daemon"
)

// apiClient speaks HTTP to a daemon, over its unix socket or TCP.
type apiClient struct {
	name   string
	client *http.Client
	base   string
	token  string
}

// serveFolder starts a daemon on a new folder holding the files given
// as name, data pairs, and returns the folder, its store and a client.
func serveFolder(t *testing.T, files ...string) (dir, store string, c *apiClient) {
	t.Helper()
	base := t.TempDir()
	dir, store = filepath.Join(base, "work"), filepath.Join(base, "store")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for j := 0; j+1 < len(files); j += 2 {
		write(t, dir, files[j], files[j+1])
	}
	info, _ := startDaemon(t, dir, store, "")
	return dir, store, unixClient(info.Socket)
}

func unixClient(sock string) *apiClient {
	tr := &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "unix", sock)
	}}
	return &apiClient{name: "unix", client: &http.Client{Transport: tr}, base: "http://localhost"}
}

// call sends body (a string, sent as is) and returns the status and the
// decoded answer.
func (c *apiClient) call(t *testing.T, method, path, body string) (int, map[string]any) {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, c.base+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	resp, err := c.client.Do(req)
	if err != nil {
		t.Fatalf("%s %s %s: %v", c.name, method, path, err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatalf("%s %s %s: %d, not a JSON document: %q", c.name, method, path, resp.StatusCode, data)
	}
	return resp.StatusCode, doc
}

// ok sends a request that must succeed.
func (c *apiClient) ok(t *testing.T, method, path, body string) map[string]any {
	t.Helper()
	status, doc := c.call(t, method, path, body)
	if status != http.StatusOK {
		t.Fatalf("%s %s %s: %d %v", c.name, method, path, status, doc)
	}
	return doc
}

// fails sends a request that must fail with status and code.
func (c *apiClient) fails(t *testing.T, method, path, body string, status, code int) map[string]any {
	t.Helper()
	got, doc := c.call(t, method, path, body)
	if got != status || doc["exit_code"] != float64(code) || doc["error"] == nil || doc["kind"] == nil {
		t.Fatalf("%s %s %s: %d %v, want %d with code %d", c.name, method, path, got, doc, status, code)
	}
	return doc
}

func write(t *testing.T, dir, name, data string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

func metaOf(turn any) map[string]any {
	m, _ := turn.(map[string]any)["meta"].(map[string]any)
	return m
}

// TestHTTPAPI drives every endpoint over the daemon's unix socket and
// over loopback TCP with the bearer token; without it, or with a wrong
// one, TCP answers 401 and does nothing. Then a conflict (409, nothing
// changed), a bad session name, malformed JSON, an unknown field and
// the reserved fields (400), a body over the limit (413), an unknown
// endpoint (404) and a wrong method (405).
func TestHTTPAPI(t *testing.T) {
	base := t.TempDir()
	dir, store := filepath.Join(base, "work"), filepath.Join(base, "store")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	write(t, dir, "a.txt", "one\n")
	info, _ := startDaemon(t, dir, store, "127.0.0.1:0")
	if info.Listen == "" || !info.HTTP {
		t.Fatalf("the daemon says %+v", info)
	}
	token, err := daemon.LoadToken(store, false)
	if err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(filepath.Join(store, daemon.TokenFile)); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("token file: %v %v", fi.Mode(), err)
	}
	tcp := &apiClient{name: "tcp", client: &http.Client{}, base: "http://" + info.Listen, token: token}
	for _, c := range []*apiClient{unixClient(info.Socket), tcp} {
		s := "/v1/sessions/s-" + c.name
		file := c.name + ".txt"
		h := c.ok(t, "GET", "/v1/health", "")
		if h["ok"] != true || h["work_tree"] != dir || h["api"] != "v1" {
			t.Fatalf("%s health: %v", c.name, h)
		}
		snap := c.ok(t, "POST", s+"/snap", `{"message":"first","meta":{"message_index":"0","k.x-y_z":"a b=c"}}`)
		write(t, dir, file, "made over "+c.name+"\n")
		end := c.ok(t, "POST", s+"/end", "")
		closed := end["closed"].(map[string]any)
		if closed["added"] != float64(1) || metaOf(closed)["k.x-y_z"] != "a b=c" {
			t.Fatalf("%s end: %v", c.name, end)
		}
		turns := c.ok(t, "GET", s+"/turns", "")
		if ts := turns["turns"].([]any); len(ts) != 1 || metaOf(ts[0])["message_index"] != "0" {
			t.Fatalf("%s turns: %v", c.name, turns)
		}
		st := c.ok(t, "GET", "/v1/status?session=s-"+c.name, "")
		if len(st["changes"].([]any)) != 0 {
			t.Fatalf("%s status: %v", c.name, st)
		}
		before, after := snap["snapshot"].(string), end["snapshot"].(string)
		diff := c.ok(t, "GET", "/v1/diff?from="+before[:10]+"&to="+after, "")
		if fs := diff["files"].([]any); len(fs) != 1 || fs[0].(map[string]any)["path"] != file {
			t.Fatalf("%s diff: %v", c.name, diff)
		}
		show := c.ok(t, "GET", "/v1/snapshots/"+after+"?session=s-"+c.name, "")
		if show["id"] != after || len(show["turns"].([]any)) != 1 {
			t.Fatalf("%s show: %v", c.name, show)
		}
		undo := c.ok(t, "POST", s+"/undo", `{"count":1}`)
		if undo["turns_undone"] != float64(1) || !slices.Equal(strs(undo["files_reverted"]), []string{file}) || undo["checkpoint"] != after {
			t.Fatalf("%s undo: %v", c.name, undo)
		}
		if _, err := os.Stat(filepath.Join(dir, file)); !os.IsNotExist(err) {
			t.Fatalf("%s undo left %s: %v", c.name, file, err)
		}
		redo := c.ok(t, "POST", s+"/redo", `{}`)
		if redo["turns_redone"] != float64(1) || metaOf(redo["turns"].([]any)[0])["message_index"] != "0" {
			t.Fatalf("%s redo: %v", c.name, redo)
		}
		res := c.ok(t, "POST", "/v1/restore", fmt.Sprintf(`{"id":%q,"session":"s-%s"}`, before, c.name))
		if !slices.Equal(strs(res["deleted"]), []string{file}) {
			t.Fatalf("%s restore: %v", c.name, res)
		}
		c.ok(t, "POST", "/v1/restore", fmt.Sprintf(`{"id":%q}`, after))
		sessions := c.ok(t, "GET", "/v1/sessions", "")
		if !strings.Contains(fmt.Sprint(sessions), "s-"+c.name) {
			t.Fatalf("%s sessions: %v", c.name, sessions)
		}
		if in := c.ok(t, "GET", "/v1/info", ""); in["work_tree"] != dir {
			t.Fatalf("%s info: %v", c.name, in)
		}
		if v := c.ok(t, "POST", "/v1/verify", ""); len(v["problems"].([]any)) != 0 {
			t.Fatalf("%s verify: %v", c.name, v)
		}
		if g := c.ok(t, "POST", "/v1/gc", `{"dry_run":true}`); g["dry_run"] != true {
			t.Fatalf("%s gc: %v", c.name, g)
		}
		if o := c.ok(t, "GET", "/v1/openapi.json", ""); o["openapi"] != "3.1.0" {
			t.Fatalf("%s openapi: %v", c.name, o["openapi"])
		}
		c.fails(t, "GET", "/v1/snapshots/ffffffffffff", "", 404, 1)
	}

	// TCP without the token, or with another: 401, and nothing done.
	unix := unixClient(info.Socket)
	turnsBefore := unix.ok(t, "GET", "/v1/sessions/s-tcp/turns", "")
	treeBefore := readTree(t, dir)
	for _, tok := range []string{"", "wrong", token + "x", strings.ToUpper(token)} {
		bad := &apiClient{name: "tcp token " + tok, client: &http.Client{}, base: tcp.base, token: tok}
		bad.fails(t, "POST", "/v1/sessions/s-tcp/undo", `{"count":1}`, 401, 2)
		bad.fails(t, "POST", "/v1/sessions/s-tcp/snap", `{}`, 401, 2)
		bad.fails(t, "GET", "/v1/health", "", 401, 2)
	}
	if after := unix.ok(t, "GET", "/v1/sessions/s-tcp/turns", ""); fmt.Sprint(after) != fmt.Sprint(turnsBefore) || readTree(t, dir) != treeBefore {
		t.Fatalf("a request without the token did something:\n%v\n%v", turnsBefore, after)
	}

	// A conflict: 409, code 3, the paths; nothing changed.
	c := unix
	c.ok(t, "POST", "/v1/sessions/c/snap", `{"message":"conflict"}`)
	write(t, dir, "c.txt", "by the turn\n")
	c.ok(t, "POST", "/v1/sessions/c/end", "")
	write(t, dir, "c.txt", "by the user\n")
	tree, turns := readTree(t, dir), c.ok(t, "GET", "/v1/sessions/c/turns", "")
	e := c.fails(t, "POST", "/v1/sessions/c/undo", `{"count":1}`, 409, 3)
	if r := e["result"].(map[string]any); e["kind"] != "conflict" || !strings.Contains(fmt.Sprint(r["conflicts"]), "c.txt") {
		t.Fatalf("conflict: %v", e)
	}
	if readTree(t, dir) != tree || fmt.Sprint(c.ok(t, "GET", "/v1/sessions/c/turns", "")) != fmt.Sprint(turns) {
		t.Fatal("a conflicting undo changed something")
	}

	// The turns an undo or redo reports are the ones it moved: an open
	// turn that changed nothing is dropped by the undo, which undoes the
	// turn before it; a redo of 2 takes two undos' turns, in order.
	d := "/v1/sessions/d"
	for i, f := range []string{"d1.txt", "d2.txt"} {
		c.ok(t, "POST", d+"/snap", fmt.Sprintf(`{"meta":{"i":"%d"}}`, i))
		write(t, dir, f, "x\n")
		c.ok(t, "POST", d+"/end", "")
	}
	c.ok(t, "POST", d+"/snap", `{"meta":{"i":"asked, changed nothing"}}`)
	for _, want := range []string{"1", "0"} {
		u := c.ok(t, "POST", d+"/undo", `{}`)
		if ts := u["turns"].([]any); u["turns_undone"] != float64(1) || len(ts) != 1 || metaOf(ts[0])["i"] != want {
			t.Fatalf("undo: %v, want the turn of meta %s", u, want)
		}
	}
	rd := c.ok(t, "POST", d+"/redo", `{"count":2}`)
	if ts := rd["turns"].([]any); rd["turns_redone"] != float64(2) || len(ts) != 2 || metaOf(ts[0])["i"] != "0" || metaOf(ts[1])["i"] != "1" {
		t.Fatalf("redo 2: %v", rd)
	}
	if n := c.ok(t, "POST", d+"/redo", `{}`); n["nothing"] != true || len(n["turns"].([]any)) != 0 {
		t.Fatalf("redo of nothing: %v", n)
	}
	// A dry run changes nothing and says what would be; a partial undo
	// takes one path back and leaves the turn on the stack.
	tree = readTree(t, dir)
	dry := c.ok(t, "POST", d+"/undo", `{"count":2,"dry_run":true}`)
	if p := dry["dry_run"].(map[string]any); p["turns"] != float64(2) || !slices.Equal(strs(p["deleted"]), []string{"d1.txt", "d2.txt"}) || readTree(t, dir) != tree {
		t.Fatalf("dry run: %v", dry)
	}
	part := c.ok(t, "POST", d+"/undo", `{"count":2,"paths":["d1.txt"]}`)
	if !slices.Equal(strs(part["files_reverted"]), []string{"d1.txt"}) || !slices.Equal(strs(part["paths"]), []string{"d1.txt"}) {
		t.Fatalf("partial undo: %v", part)
	}
	if ts := c.ok(t, "GET", d+"/turns", "")["turns"].([]any); len(ts) != 2 {
		t.Fatalf("after a partial undo: %v", ts)
	}
	c.ok(t, "POST", d+"/redo", `{}`)
	tree = readTree(t, dir)
	turns = c.ok(t, "GET", "/v1/sessions/c/turns", "")

	// Requests refused before anything runs.
	c.fails(t, "POST", "/v1/sessions/a%20b/snap", `{}`, 400, 2)
	c.fails(t, "GET", "/v1/sessions/a%01b/turns", "", 400, 2)
	c.fails(t, "POST", "/v1/sessions/c/snap", `{"message":`, 400, 2)
	c.fails(t, "POST", "/v1/sessions/c/snap", `{"message":"x"} {}`, 400, 2)
	c.fails(t, "POST", "/v1/sessions/c/undo", `{"count":"2"}`, 400, 2)
	c.fails(t, "POST", "/v1/sessions/c/undo", `{"cuont":2}`, 400, 2)
	c.fails(t, "POST", "/v1/sessions/c/undo", `{"count":-1}`, 400, 2)
	c.fails(t, "POST", "/v1/sessions/c/undo", `{"paths":["../c.txt"]}`, 400, 2)
	c.fails(t, "POST", "/v1/sessions/c/undo", `{"paths":["nothing-changed-here"]}`, 400, 2)
	c.fails(t, "POST", "/v1/sessions/c/undo", `{"merge":"bogus"}`, 400, 2)
	c.fails(t, "POST", "/v1/sessions/c/redo", `{"paths":["c.txt"]}`, 400, 2)
	// A dry run of the conflicting undo: 409 with what it would do.
	if e := c.fails(t, "POST", "/v1/sessions/c/undo", `{"dry_run":true}`, 409, 3); e["result"].(map[string]any)["dry_run"] == nil {
		t.Fatalf("dry run conflict: %v", e)
	}
	c.fails(t, "POST", "/v1/sessions/c/snap", `{"meta":{"bad key":"x"}}`, 400, 2)
	c.fails(t, "POST", "/v1/restore", `{}`, 400, 2)
	big := `{"message":"` + strings.Repeat("x", 2<<20) + `"}`
	c.fails(t, "POST", "/v1/sessions/c/snap", big, 413, 2)
	tcp.fails(t, "POST", "/v1/sessions/c/snap", big, 413, 2)
	c.fails(t, "GET", "/v1/nothing", "", 404, 2)
	c.fails(t, "GET", "/v1/sessions/c/undo", "", 405, 2)
	if readTree(t, dir) != tree || fmt.Sprint(c.ok(t, "GET", "/v1/sessions/c/turns", "")) != fmt.Sprint(turns) {
		t.Fatal("a refused request changed something")
	}
	// The CLI's framed protocol still works on the same socket.
	if in, ok := daemon.Ping(store); !ok || in.Requests == 0 {
		t.Fatalf("ping on the socket: %v %+v", ok, in)
	}
}

func strs(v any) []string {
	var out []string
	for _, x := range v.([]any) {
		out = append(out, x.(string))
	}
	return out
}

// TestHTTPUndoSeedScenario is the agent server's /undo N: snap with
// meta message_index=0, edit, end, snap with message_index=2, edit,
// end; undo count 2 answers turns_undone 2, the reverted files and both
// metas, and the folder is byte-identical to before the first turn.
func TestHTTPUndoSeedScenario(t *testing.T) {
	dir, _, c := serveFolder(t, "main.go", "package main\n", "notes.md", "notes\n")
	start := readTree(t, dir)
	s := "/v1/sessions/conversation-1"
	c.ok(t, "POST", s+"/snap", `{"message":"add a test","meta":{"message_index":"0"}}`)
	write(t, dir, "main_test.go", "package main\n")
	write(t, dir, "main.go", "package main\n\nfunc main() {}\n")
	c.ok(t, "POST", s+"/end", "")
	c.ok(t, "POST", s+"/snap", `{"message":"drop the notes","meta":{"message_index":"2"}}`)
	if err := os.Remove(filepath.Join(dir, "notes.md")); err != nil {
		t.Fatal(err)
	}
	c.ok(t, "POST", s+"/end", "")
	undo := c.ok(t, "POST", s+"/undo", `{"count":2}`)
	if undo["turns_undone"] != float64(2) {
		t.Fatalf("undo: %v", undo)
	}
	if got := strs(undo["files_reverted"]); !slices.Equal(got, []string{"main.go", "main_test.go", "notes.md"}) {
		t.Fatalf("files_reverted %v", got)
	}
	ts := undo["turns"].([]any)
	if len(ts) != 2 || metaOf(ts[0])["message_index"] != "0" || metaOf(ts[1])["message_index"] != "2" {
		t.Fatalf("turns: %v", ts)
	}
	if undo["snapshot_restored"] == "" || undo["checkpoint"] == "" || len(undo["conflicts"].([]any)) != 0 || len(undo["not_restorable"].([]any)) != 0 {
		t.Fatalf("undo: %v", undo)
	}
	if got := readTree(t, dir); got != start {
		t.Fatalf("folder after undo:\n%s\nbefore the first turn:\n%s", got, start)
	}
}

// TestHTTPPythonClient runs the Python client of docs/api.md (standard library
// only) against a daemon: a snap with meta, an edit, an end and its
// undo(), which must name the reverted file and the message to drop.
func TestHTTPPythonClient(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 is not installed: the Python client of docs/api.md is not tried")
	}
	readme, err := os.ReadFile(filepath.Join("docs", "api.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(readme), "A client with Python's standard library only:\n\n```python\n")
	client, _, ok2 := strings.Cut(rest, "```\n")
	if !ok || !ok2 {
		t.Fatal("docs/api.md has no Python client")
	}
	if n := strings.Count(client, "\n"); n > 30 {
		t.Errorf("the Python client is %d lines", n)
	}
	base := t.TempDir()
	dir, store := filepath.Join(base, "work"), filepath.Join(base, "store")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	info, _ := startDaemon(t, dir, store, "")
	script := client + `
import os, sys
sock, folder = sys.argv[1], sys.argv[2]
print(turnback(sock, "GET", "/v1/health")["ok"])
turnback(sock, "POST", "/v1/sessions/py/snap", {"message": "hi", "meta": {"message_index": "4"}})
open(os.path.join(folder, "made.txt"), "w").write("by the agent\n")
turnback(sock, "POST", "/v1/sessions/py/end")
print(json.dumps(undo(sock, "py", 1), sort_keys=True))
try:
    turnback(sock, "POST", "/v1/sessions/py/undo", {"count": "x"})
except RuntimeError as e:
    print(e)
`
	p := filepath.Join(base, "client.py")
	if err := os.WriteFile(p, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	cmd := exec.Command(py, p, info.Socket, dir)
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("python3: %v\n%s%s", err, out.String(), errb.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 3 || lines[0] != "True" {
		t.Fatalf("python3 printed:\n%s", out.String())
	}
	var res map[string]any
	if err := json.Unmarshal([]byte(lines[1]), &res); err != nil {
		t.Fatal(err)
	}
	if res["turns_undone"] != float64(1) || res["drop_messages_from"] != float64(4) || fmt.Sprint(res["files_reverted"]) != "[made.txt]" {
		t.Fatalf("undo: %v", res)
	}
	if !strings.Contains(lines[2], "(HTTP 400, exit code 2)") {
		t.Fatalf("error: %s", lines[2])
	}
	if _, err := os.Stat(filepath.Join(dir, "made.txt")); !os.IsNotExist(err) {
		t.Fatalf("made.txt after undo: %v", err)
	}
}
