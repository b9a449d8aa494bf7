//go:build unix

package turnback_test

// Issue 30: API requests that must be refused (400) before anything
// runs, over a real daemon's unix socket.

import (
	"fmt"
	"testing"
)

// TestHTTPRefusedInput: an empty path in "paths" (alone, with others, in
// a dry run) is a 400 naming it; a request with a key given twice is
// a 400. Neither changes the folder or the session's turns.
func TestHTTPRefusedInput(t *testing.T) {
	dir, _, c := serveFolder(t, "a.txt", "one\n")
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

	// A key given twice, in any spelling encoding/json would take for
	// the same field, at any depth: 400, nothing run.
	before := readTree(t, dir)
	for _, r := range []struct{ path, body string }{
		{s + "/undo", `{"dry_run":true,"dry_run":false}`},
		{s + "/undo", `{"dry_run":true,"DRY_RUN":false}`},
		{s + "/undo", `{"dry_run":true,"dry\u005frun":false}`},
		{s + "/undo", `{"count":1,"force":true,"count":1}`},
		{s + "/undo", `{"Dry_Run":false}`},
		{s + "/redo", `{"dry_run":true,"dry_run":false}`},
		{s + "/snap", `{"message":"a","message":"b"}`},
		{s + "/snap", `{"meta":{"k":"a","k":"b"}}`},
		{"/v1/restore", `{"id":"ffff","id":"eeee"}`},
		{"/v1/gc", `{"dry_run":true,"dry_run":false}`},
		{"/v1/verify", `{"a":1,"a":1}`},
	} {
		e := c.fails(t, "POST", r.path, r.body, 400, 2)
		if e["kind"] != "bad_request" {
			t.Errorf("%s %s: %v", r.path, r.body, e)
		}
		if readTree(t, dir) != before || fmt.Sprint(c.ok(t, "GET", s+"/turns", "")) != turns {
			t.Fatalf("%s %s changed something", r.path, r.body)
		}
	}
	if e := c.fails(t, "POST", s+"/undo", `{"dry_run":true,"dry_run":false}`, 400, 2); e["error"] != `turnback: api: malformed JSON: "dry_run" is given twice` {
		t.Errorf("the error: %v", e["error"])
	}
	// A malformed turn reference or id prefix (spaces around it, too
	// short, @0) is the CLI's usage error: 400, code 2, kind bad_ref.
	for _, r := range []struct{ method, path, body string }{
		{"GET", "/v1/diff?from=%20@1", ""},
		{"GET", "/v1/diff?from=@1&to=@1%20&session=s", ""},
		{"GET", "/v1/diff?from=@0", ""},
		{"GET", "/v1/snapshots/%20@1?session=s", ""},
		{"GET", "/v1/snapshots/abc", ""},
		{"POST", "/v1/restore", `{"id":" @1","session":"s"}`},
		{"POST", "/v1/restore", `{"id":"@1\t","session":"s"}`},
	} {
		e := c.fails(t, r.method, r.path, r.body, 400, 2)
		if e["kind"] != "bad_ref" {
			t.Errorf("%s %s %s: %v", r.method, r.path, r.body, e)
		}
		if readTree(t, dir) != before || fmt.Sprint(c.ok(t, "GET", s+"/turns", "")) != turns {
			t.Fatalf("%s %s %s changed something", r.method, r.path, r.body)
		}
	}
	if e := c.fails(t, "GET", "/v1/diff?from=%20@1", "", 400, 2); e["error"] != `turnback: " @1" is not a turn reference: remove the spaces around it (@1)` {
		t.Errorf("the error: %v", e["error"])
	}
	// Keys that differ are fine, in meta too.
	c.ok(t, "POST", s+"/snap", `{"meta":{"k":"a","K":"b"}}`)
}
