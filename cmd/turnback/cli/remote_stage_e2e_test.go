package cli

import (
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/turnback/turnback/cas/s3/s3test"
)

// TestRemoteCLIPushReleasesStore: a push stages its packs in the store
// directory and releases the store before uploading them, so commands
// that write the store do not wait for the network. The server is
// versitygw behind a proxy that holds every pack upload until the test
// lets it through: while the push's first pack upload is held, a snap
// (TURNBACK_LOCK_WAIT=0: no waiting at all) and an end succeed; then
// the push finishes, its staging directory is gone, and a clone is the
// folder as it was pushed, byte for byte. The push.lock of background
// pushes is held until the upload ends (TestRemoteCLIAutoPush*).
func TestRemoteCLIPushReleasesStore(t *testing.T) {
	srv := s3test.Start(t)
	target, err := url.Parse(srv.Endpoint)
	if err != nil {
		t.Fatal(err)
	}
	forward := httputil.NewSingleHostReverseProxy(target) // keeps the Host the client signed
	gate := make(chan struct{})
	held := make(chan struct{}, 1)
	var once sync.Once
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPut && strings.Contains(r.URL.Path, "/packs/") {
			select {
			case held <- struct{}{}:
			default:
			}
			select {
			case <-gate:
			case <-r.Context().Done():
				return
			}
		}
		forward.ServeHTTP(w, r)
	}))
	defer proxy.Close()
	defer once.Do(func() { close(gate) })

	a := newCLI(t, "a")
	for _, kv := range srv.Env() {
		if strings.HasPrefix(kv, "AWS_ENDPOINT_URL=") {
			kv = "AWS_ENDPOINT_URL=" + proxy.URL
		}
		a.extra = append(a.extra, kv)
	}
	a.ok("remote", "set", "s3://tb-stage/x", "--create")
	a.write("src/app.go", "package app\n")
	a.write("big.bin", strings.Repeat("0123456789abcdef", 1<<16))
	a.ok("snap")
	a.write("notes.txt", "one\n")
	a.ok("end")
	pushed := a.tree()

	push := a.command("push")
	var out strings.Builder
	push.Stdout, push.Stderr = &out, &out
	if err := push.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- push.Wait() }()
	select {
	case <-held:
	case err := <-done:
		t.Fatalf("push ended before uploading a pack (%v): %s", err, out.String())
	case <-time.After(2 * time.Minute): // only keeps a broken build from hanging
		t.Fatal("no pack upload reached the server")
	}
	stages, _ := filepath.Glob(filepath.Join(a.storeDir(), "push-stage-*", "*.pack"))
	if len(stages) == 0 {
		t.Fatalf("no staged pack in %s while the upload is held", a.storeDir())
	}

	// The upload is held: the store must be free.
	a.extra = append(a.extra, "TURNBACK_LOCK_WAIT=0")
	a.ok("snap")
	a.write("notes.txt", "two\n")
	a.ok("end")

	once.Do(func() { close(gate) })
	if err := <-done; err != nil {
		t.Fatalf("push: %v: %s", err, out.String())
	}
	if !strings.HasPrefix(out.String(), "pushed default: ") {
		t.Fatalf("push said: %q", out.String())
	}
	if left, _ := filepath.Glob(filepath.Join(a.storeDir(), "push-stage-*")); len(left) != 0 {
		t.Fatalf("staging left behind: %v", left)
	}
	b := remoteClone(t, srv, "s3://tb-stage/x", "default")
	b.same("clone of the push made while its upload was held", pushed)
	if _, err := os.Stat(a.storeDir()); err != nil {
		t.Fatal(err)
	}
}
