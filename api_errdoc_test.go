//go:build unix

package turnback_test

// Issue 36, item 11: the HTTP API's error documents, over a real
// daemon's unix socket. An unknown session is a 404; errors carry the
// CLI's --json field names and never a Go type name.

import (
	"strings"
	"testing"

	"github.com/turnback/turnback"
)

// TestHTTPUnknownSession: a request naming a session the store has no
// record of is a 404 (kind no_session, exit_code 1) that changes
// nothing, but for snap, which starts it, and for "default". A Go
// client (a served Repo) keeps the library's rule: an unknown session
// is one without turns.
func TestHTTPUnknownSession(t *testing.T) {
	dir, store, c := serveFolder(t, "a.txt", "one\n")
	for _, rq := range []struct{ method, path, body string }{
		{"POST", "/v1/sessions/nosuch/undo", `{"count":1}`},
		{"POST", "/v1/sessions/nosuch/redo", ``},
		{"POST", "/v1/sessions/nosuch/end", ``},
		{"GET", "/v1/sessions/nosuch/turns", ``},
		{"GET", "/v1/sessions/nosuch/turns/1", ``},
	} {
		e := c.fails(t, rq.method, rq.path, rq.body, 404, 1)
		if e["kind"] != "no_session" || e["error"] != "turnback: no such session: nosuch" {
			t.Errorf("%s %s: %v", rq.method, rq.path, e)
		}
	}
	if got := c.ok(t, "GET", "/v1/sessions", ""); len(got["sessions"].([]any)) != 0 {
		t.Fatalf("the 404s left sessions: %v", got)
	}
	if u := c.ok(t, "POST", "/v1/sessions/default/undo", ""); u["nothing"] != true {
		t.Fatalf("default: %v", u)
	}
	c.ok(t, "POST", "/v1/sessions/new/snap", `{"message":"m"}`)
	write(t, dir, "a.txt", "two\n")
	if u := c.ok(t, "POST", "/v1/sessions/new/undo", ""); u["turns_undone"] != float64(1) {
		t.Fatalf("a session snap started: %v", u)
	}

	repo, err := turnback.Open(t.Context(), dir, turnback.Options{Store: store, Session: "other"})
	if err != nil {
		t.Fatal(err)
	}
	defer repo.Close()
	if !repo.Served() {
		t.Fatal("the repo is not served")
	}
	res, err := repo.Undo(t.Context(), 1, turnback.UndoOptions{})
	if err != nil || !res.Nothing {
		t.Fatalf("a served Repo's undo of a session without turns: %+v %v", res, err)
	}
}

// TestHTTPErrorDocument: an error carries "exit_code" (as the CLI's
// --json does), not "code"; a body of the wrong JSON type names the
// field and the type wanted in JSON's words, never Go's.
func TestHTTPErrorDocument(t *testing.T) {
	_, _, c := serveFolder(t)
	c.ok(t, "POST", "/v1/sessions/s/snap", `{}`)
	for _, tc := range []struct{ path, body, want string }{
		{"/v1/sessions/s/undo", `{"count":"2"}`, `turnback: api: malformed JSON: field "count": want a whole number, got a string`},
		{"/v1/sessions/s/undo", `{"count":1.5}`, `turnback: api: malformed JSON: field "count": want a whole number, got 1.5`},
		{"/v1/sessions/s/undo", `{"force":1}`, `turnback: api: malformed JSON: field "force": want true or false, got a number`},
		{"/v1/sessions/s/undo", `{"paths":"a"}`, `turnback: api: malformed JSON: field "paths": want an array of strings, got a string`},
		{"/v1/sessions/s/undo", `{"paths":[1]}`, `turnback: api: malformed JSON: field "paths": want an array of strings, got a number in it`},
		{"/v1/sessions/s/undo", `{"merge":true}`, `turnback: api: malformed JSON: field "merge": want a string, got true or false`},
		{"/v1/sessions/s/snap", `{"meta":{"k":1}}`, `turnback: api: malformed JSON: field "meta": want an object of strings, got a number in it`},
		{"/v1/sessions/s/snap", `{"meta":[]}`, `turnback: api: malformed JSON: field "meta": want an object of strings, got an array`},
		{"/v1/sessions/s/undo", `[]`, `turnback: api: malformed JSON: want an object, got an array`},
		{"/v1/sessions/s/undo", `"x"`, `turnback: api: malformed JSON: want an object, got a string`},
		{"/v1/gc", `{"older_than_seconds":-1e30}`, `turnback: api: malformed JSON: field "older_than_seconds": want a whole number, got -1e30`},
	} {
		_, e := c.call(t, "POST", tc.path, tc.body)
		if e["error"] != tc.want || e["exit_code"] != float64(2) || e["kind"] != "bad_request" {
			t.Errorf("%s %s: %v\nwant error %s", tc.path, tc.body, e, tc.want)
		}
		if _, ok := e["code"]; ok {
			t.Errorf("%s %s: the document has \"code\": %v", tc.path, tc.body, e)
		}
		if msg, _ := e["error"].(string); strings.Contains(msg, "Go ") || strings.Contains(msg, "Request") {
			t.Errorf("%s %s: a Go name in %q", tc.path, tc.body, msg)
		}
	}
}
