// Package s3test starts a real S3-compatible server for tests:
// versitygw with its posix backend in a temporary folder, listening on
// 127.0.0.1. The program is $TURNBACK_TEST_VERSITYGW, or versitygw on
// PATH or in $(go env GOPATH)/bin. Without it the test is skipped with a
// message, except under CI (CI set), where it fails: CI installs it
// (.ci/run). The tests that start one are in the slow tier
// (internal/testtier): Start skips them unless TURNBACK_TEST_SLOW=1.
//
// # Failure behaviour
//
// A server that does not accept connections within 30 s fails the test
// with its output. The server is killed, and its folder removed, when the
// test ends.
package s3test

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/turnback/turnback/cas/s3"
	"github.com/turnback/turnback/internal/testtier"
)

// Credentials of the test server's root account.
const (
	AccessKey = "turnbacktest"
	SecretKey = "turnbacktestsecret"
	Region    = "us-east-1"
)

// Server is a running test server.
type Server struct {
	Endpoint string // http://127.0.0.1:PORT
	Root     string // the posix backend's folder: bucket/KEY are files
}

// Binary returns the versitygw program, or "" when there is none.
func Binary() string {
	if p := os.Getenv("TURNBACK_TEST_VERSITYGW"); p != "" {
		return p
	}
	if p, err := exec.LookPath("versitygw"); err == nil {
		return p
	}
	if out, err := exec.Command("go", "env", "GOPATH").Output(); err == nil {
		p := filepath.Join(string(bytes.TrimSpace(out)), "bin", "versitygw")
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return ""
}

// Start starts a server for t (see the package doc).
func Start(t testing.TB) *Server {
	t.Helper()
	testtier.Slow(t)
	bin := Binary()
	if bin == "" {
		msg := "versitygw not found: go install github.com/versity/versitygw/cmd/versitygw@v1.8.0 (or set TURNBACK_TEST_VERSITYGW)"
		if os.Getenv("CI") != "" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	root := t.TempDir()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	var out bytes.Buffer
	cmd := exec.Command(bin, "--access", AccessKey, "--secret", SecretKey, "--region", Region, "--port", addr, "posix", root)
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-done
	})
	deadline := time.Now().Add(30 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
			break
		}
		select {
		case <-done:
			t.Fatalf("versitygw exited: %s", out.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("versitygw did not listen on %s in 30 s: %s", addr, out.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	return &Server{Endpoint: "http://" + addr, Root: root}
}

// Config returns a remote configuration for bucket/prefix on s.
func (s *Server) Config(bucket, prefix string) s3.Config {
	return s3.Config{URL: fmt.Sprintf("s3://%s/%s", bucket, prefix), Endpoint: s.Endpoint, Region: Region,
		AccessKey: AccessKey, SecretKey: SecretKey}
}

// Env returns the environment variables that point turnback at s.
func (s *Server) Env() []string {
	return []string{"AWS_ENDPOINT_URL=" + s.Endpoint, "AWS_REGION=" + Region,
		"AWS_ACCESS_KEY_ID=" + AccessKey, "AWS_SECRET_ACCESS_KEY=" + SecretKey}
}

// Client returns a client of bucket/prefix on s, making the bucket.
func (s *Server) Client(t testing.TB, bucket, prefix string) *s3.Client {
	t.Helper()
	c, err := s3.New(s.Config(bucket, prefix))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.CheckBucket(t.Context(), true, Region); err != nil {
		t.Fatal(err)
	}
	return c
}
