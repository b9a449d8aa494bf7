//go:build unix

package turnback_test

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/turnback/turnback"
	daemons "github.com/turnback/turnback/internal/daemon"
	"github.com/turnback/turnback/internal/daemonop"
)

// TestHTTPOpsSocketOnly: an operation another package adds to the API
// (package daemonop: the remote's push and pull, whose bodies carry
// credentials) runs on the session the request names over a unix
// socket, and is not served over TCP (404, not_found, nothing run), nor
// is an unknown one; a key given twice is refused before it runs.
func TestHTTPOpsSocketOnly(t *testing.T) {
	base, err := os.MkdirTemp("", "ops") // short: socket paths are bounded
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	dir := filepath.Join(base, "w")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	repo, err := turnback.Open(t.Context(), dir, turnback.Options{Store: filepath.Join(base, "s"), Local: true})
	if err != nil {
		t.Fatal(err)
	}
	defer repo.Close()
	ran := 0
	daemonop.Register("test-echo", func(_ context.Context, r any, body json.RawMessage) (any, error) {
		ran++
		return map[string]any{"session": r.(*turnback.Repo).Session(), "body": body}, nil
	})
	h := daemons.NewHandler(repo)

	ln, err := net.Listen("unix", filepath.Join(base, "sock"))
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: h}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { srv.Close() })
	unix := unixClient(filepath.Join(base, "sock"))
	doc := unix.ok(t, "POST", "/v1/ops/test-echo?session=s", `{"k":1}`)
	if doc["session"] != "s" || doc["body"].(map[string]any)["k"] != float64(1) || ran != 1 {
		t.Fatalf("over the socket: %v (ran %d)", doc, ran)
	}
	if e := unix.fails(t, "POST", "/v1/ops/test-echo", `{"k":1,"k":2}`, 400, 2); e["kind"] != "bad_request" || ran != 1 {
		t.Fatalf("a key given twice: %v (ran %d)", e, ran)
	}
	if e := unix.fails(t, "POST", "/v1/ops/nothing", `{}`, 404, 2); e["kind"] != "not_found" {
		t.Fatalf("an unknown operation: %v", e)
	}

	tcp := httptest.NewServer(h)
	defer tcp.Close()
	c := &apiClient{name: "tcp", client: tcp.Client(), base: tcp.URL}
	if e := c.fails(t, "POST", "/v1/ops/test-echo?session=s", `{"k":1}`, 404, 2); e["kind"] != "not_found" || ran != 1 {
		t.Fatalf("over TCP: %v (ran %d)", e, ran)
	}
}
