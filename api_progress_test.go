//go:build unix

package turnback_test

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/turnback/turnback"
	daemons "github.com/turnback/turnback/internal/daemon"
)

// streamLines posts body to path with accept and returns the status,
// the content type and the answer's lines.
func streamLines(t *testing.T, srv *httptest.Server, method, path, body, accept string) (int, string, []map[string]any) {
	t.Helper()
	req, err := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", accept)
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var lines []map[string]any
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var doc map[string]any
		if err := json.Unmarshal(sc.Bytes(), &doc); err != nil {
			t.Fatalf("%s %s: line %q: %v", method, path, sc.Bytes(), err)
		}
		lines = append(lines, doc)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header.Get("Content-Type"), lines
}

// TestHTTPProgressStream: a request that accepts application/x-ndjson
// gets the counters of its capture and restore as lines, then its
// outcome; one that accepts application/json (too) gets the document.
func TestHTTPProgressStream(t *testing.T) {
	ctx := context.Background()
	dir, store := t.TempDir(), filepath.Join(t.TempDir(), "store")
	const files = 40
	for i := range files {
		write(t, dir, fmt.Sprintf("f%02d.txt", i), fmt.Sprintf("file %d\n", i))
	}
	repo, err := turnback.Open(ctx, dir, turnback.Options{Store: store, Local: true})
	if err != nil {
		t.Fatal(err)
	}
	defer repo.Close()
	srv := httptest.NewServer(daemons.NewHandler(repo))
	defer srv.Close()

	// The outcome is the last line; every line before it is progress,
	// the counters never going back, the last of them the capture's
	// totals, or a restore's step.
	var steps []string
	outcome := func(what string, lines []map[string]any) (last map[string]any, progress map[string]any) {
		t.Helper()
		if len(lines) == 0 {
			t.Fatalf("%s: no lines", what)
		}
		prev := map[string]float64{}
		steps = nil
		for i, l := range lines[:len(lines)-1] {
			if s, ok := l["step"].(string); ok && len(l) == 1 {
				steps = append(steps, s)
				continue
			}
			p, ok := l["progress"].(map[string]any)
			if !ok || len(l) != 1 {
				t.Fatalf("%s: line %d is neither progress nor a step: %v", what, i, l)
			}
			for k, v := range p {
				if k != "restore_total" && v.(float64) < prev[k] {
					t.Fatalf("%s: %s went back: %v after %v", what, k, v, prev[k])
				}
				prev[k] = v.(float64)
			}
			progress = p
		}
		return lines[len(lines)-1], progress
	}

	status, ctype, lines := streamLines(t, srv, "POST", "/v1/sessions/default/snap", `{"message":"m"}`, "application/x-ndjson")
	last, p := outcome("snap", lines)
	if status != 200 || ctype != "application/x-ndjson" {
		t.Fatalf("snap: %d %q", status, ctype)
	}
	res, ok := last["result"].(map[string]any)
	if !ok || res["session"] != "default" || res["turn"] != float64(1) || len(res["snapshot"].(string)) != 64 {
		t.Fatalf("snap: last line %v", last)
	}
	if p == nil || p["files"] != float64(files) || p["hashed_files"] != float64(files) {
		t.Fatalf("snap: last progress %v, want %d files seen and read", p, files)
	}

	// An undo reports its restore's steps.
	write(t, dir, "f00.txt", "changed\n")
	if _, err := repo.End(ctx); err != nil {
		t.Fatal(err)
	}
	_, _, lines = streamLines(t, srv, "POST", "/v1/sessions/default/undo", `{}`, "application/x-ndjson")
	last, p = outcome("undo", lines)
	if res, ok := last["result"].(map[string]any); !ok || res["turns_undone"] != float64(1) {
		t.Fatalf("undo: last line %v", last)
	}
	if p == nil || p["restore_done"].(float64) == 0 || p["restore_done"].(float64) > p["restore_total"].(float64) {
		t.Fatalf("undo: last progress %v, want the restore's steps", p)
	}
	// Its steps, named as restore.Options.Hook names them, in order: the
	// journal (the commit point) after the staging, before the end.
	if j := slices.Index(steps, "journal"); j < 1 || j == len(steps)-1 || !strings.HasPrefix(steps[0], "stage") {
		t.Fatalf("undo: steps %q, want staging, the journal, and more", steps)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "f00.txt")); string(data) != "file 0\n" {
		t.Fatalf("undo left %q", data)
	}

	// An error is the last line, with the status it would have had.
	_, _, lines = streamLines(t, srv, "POST", "/v1/restore", `{"id":"abcdef0123"}`, "application/x-ndjson")
	last, _ = outcome("restore", lines)
	e, ok := last["error"].(map[string]any)
	if !ok || last["status"] != float64(404) || e["kind"] != "unknown_id" || e["exit_code"] != float64(1) {
		t.Fatalf("restore of an unknown id: last line %v", last)
	}
	_, _, lines = streamLines(t, srv, "POST", "/v1/sessions/default/snap", `{"nope":1}`, "application/x-ndjson")
	last, _ = outcome("bad request", lines)
	if e, ok := last["error"].(map[string]any); !ok || last["status"] != float64(400) || e["kind"] != "bad_request" {
		t.Fatalf("bad request: last line %v", last)
	}

	// JSON accepted: one document, as without the header.
	for _, accept := range []string{"application/json", "application/x-ndjson, application/json", "*/*"} {
		status, ctype, lines = streamLines(t, srv, "GET", "/v1/sessions", "", accept)
		if status != 200 || ctype != "application/json" || len(lines) != 1 || lines[0]["sessions"] == nil {
			t.Fatalf("Accept %q: %d %q %v", accept, status, ctype, lines)
		}
	}
}

// TestDaemonRepoProgress: a Repo a daemon serves fills the counters of
// its Options as a local one does (the capture's files, the restore's
// steps), and its restore hook sees the daemon's steps.
func TestDaemonRepoProgress(t *testing.T) {
	ctx := context.Background()
	dir, store := t.TempDir(), filepath.Join(t.TempDir(), "store")
	write(t, dir, "a.txt", "one\n")
	startDaemon(t, dir, store, "")
	p, rp := &turnback.Progress{}, &turnback.RestoreProgress{}
	repo, err := turnback.Open(ctx, dir, turnback.Options{Store: store, LockWait: -1, Progress: p, RestoreProgress: rp})
	if err != nil {
		t.Fatal(err)
	}
	defer repo.Close()
	if !repo.Served() {
		t.Fatal("not served")
	}
	if err := os.MkdirAll(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	for i := range 10 {
		write(t, filepath.Join(dir, "sub"), fmt.Sprintf("n%d", i), "new\n")
	}
	if _, err := repo.Snap(ctx, "m"); err != nil {
		t.Fatal(err)
	}
	if p.HashedFiles.Load() < 10 || p.Files.Load() < 10 {
		t.Fatalf("after snap: %d files seen, %d read; want the 10 new ones at least", p.Files.Load(), p.HashedFiles.Load())
	}
	write(t, dir, "a.txt", "two\n")
	if _, err := repo.End(ctx); err != nil {
		t.Fatal(err)
	}
	var steps []string
	repo.SetRestoreHook(func(step string) error { steps = append(steps, step); return errors.New("not the daemon's") })
	if _, err := repo.Undo(ctx, 1, turnback.UndoOptions{}); err != nil {
		t.Fatal(err)
	}
	if rp.Done.Load() == 0 || rp.Done.Load() > rp.Total.Load() {
		t.Fatalf("after undo: %d of %d restore steps", rp.Done.Load(), rp.Total.Load())
	}
	// The hook saw the daemon's steps, and its error failed none.
	if !slices.Contains(steps, "journal") || int64(len(steps)) != rp.Done.Load() {
		t.Fatalf("the restore hook saw %q; %d steps done", steps, rp.Done.Load())
	}
}

// TestHTTPWrongDaemon: a request that names another store or folder
// (as the Go client names its own) is answered 421 and runs nothing; one
// that names this daemon's is served.
func TestHTTPWrongDaemon(t *testing.T) {
	dir, store := t.TempDir(), filepath.Join(t.TempDir(), "store")
	write(t, dir, "a.txt", "one\n")
	repo, err := turnback.Open(context.Background(), dir, turnback.Options{Store: store, Local: true})
	if err != nil {
		t.Fatal(err)
	}
	defer repo.Close()
	srv := httptest.NewServer(daemons.NewHandler(repo))
	defer srv.Close()
	b64 := func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
	for _, tc := range []struct {
		header, value string
		status        int
		kind          string
	}{
		{"Turnback-Store", b64(repo.StoreDir()), 200, ""},
		{"Turnback-Work-Tree", b64(repo.WorkTree()), 200, ""},
		{"Turnback-Store", b64(t.TempDir()), 421, "wrong_daemon"},
		{"Turnback-Work-Tree", b64(t.TempDir()), 421, "wrong_daemon"},
		{"Turnback-Store", "not base64!", 400, "bad_request"},
	} {
		req, _ := http.NewRequest("POST", srv.URL+"/v1/sessions/default/snap", strings.NewReader("{}"))
		req.Header.Set(tc.header, tc.value)
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var doc map[string]any
		_ = json.NewDecoder(resp.Body).Decode(&doc)
		resp.Body.Close()
		if resp.StatusCode != tc.status || tc.kind != "" && doc["kind"] != tc.kind {
			t.Errorf("%s: %s: %d %v, want %d %s", tc.header, tc.value, resp.StatusCode, doc, tc.status, tc.kind)
		}
	}
	// Only the two requests for this daemon ran a snap.
	turns, _, err := repo.Turns(context.Background())
	if err != nil || len(turns) != 1 {
		t.Fatalf("turns: %d, %v; want the one the first snap opened", len(turns), err)
	}
}
