//go:build unix

package turnback_test

import (
	"testing"
)

// TestHTTPSessionNames: a session name in the path or in a body that the
// session name rule refuses ("." and ".." escaped, a backslash, a C1
// control, a byte that is not UTF-8, a bidi override) is a 400 with
// code 2, and no session is made.
func TestHTTPSessionNames(t *testing.T) {
	_, _, c := serveFolder(t, "a.txt", "one\n")
	for _, esc := range []string{"%2e%2e", "%2E%2E", "%2e", "a%5Cb", "a%C2%85", "%FF", "a%E2%80%AEb"} {
		for _, op := range []string{"snap", "end", "undo", "redo"} {
			c.fails(t, "POST", "/v1/sessions/"+esc+"/"+op, "", 400, 2)
		}
		c.fails(t, "GET", "/v1/sessions/"+esc+"/turns", "", 400, 2)
	}
	for _, name := range []string{`..`, `.`, `a\\b`} {
		c.fails(t, "POST", "/v1/restore", `{"id":"@1","session":"`+name+`"}`, 400, 2)
	}
	if got := c.ok(t, "GET", "/v1/sessions", ""); len(got["sessions"].([]any)) != 0 {
		t.Fatalf("sessions: %v", got)
	}
}
