//go:build unix

package turnback_test

// Issue 30: API requests that must be refused (400) before anything
// runs, over a real daemon's unix socket.

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// TestHTTPRefusedInput: an empty path in "paths" (alone, with others, in
// a dry run) is a 400 naming it; a request with a key given twice is
// a 400. Neither changes the folder or the session's turns.
func TestHTTPRefusedInput(t *testing.T) {
	base := t.TempDir()
	dir, store := filepath.Join(base, "work"), filepath.Join(base, "store")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	write(t, dir, "a.txt", "one\n")
	info, _ := startDaemon(t, dir, store, "")
	c := unixClient(info.Socket)
	s := "/v1/sessions/s"
	c.ok(t, "POST", s+"/snap", `{"message":"turn"}`)
	write(t, dir, "a.txt", "two\n")
	write(t, dir, "b.txt", "bee\n")
	c.ok(t, "POST", s+"/end", "")
	tree, turns := readTree(t, dir), fmt.Sprint(c.ok(t, "GET", s+"/turns", ""))
	unchanged := func(what string) {
		t.Helper()
		if readTree(t, dir) != tree || fmt.Sprint(c.ok(t, "GET", s+"/turns", "")) != turns {
			t.Fatalf("%s changed something", what)
		}
	}
	const empty = `turnback: bad path: an empty path ("") names no file or directory; nothing was done`
	for _, body := range []string{`{"paths":[""]}`, `{"paths":["a.txt",""]}`, `{"paths":[""],"dry_run":true}`, `{"paths":[""],"force":true,"count":5}`} {
		e := c.fails(t, "POST", s+"/undo", body, 400, 2)
		if e["error"] != empty || e["kind"] != "bad_path" {
			t.Errorf("%s: %v", body, e)
		}
		unchanged(body)
	}
}
