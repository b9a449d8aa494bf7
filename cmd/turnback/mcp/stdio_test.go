package mcp

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

// lockedBuffer is a bytes.Buffer safe for the transport's writes.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// TestLineTransport runs the server in this process (for the race
// detector) on many pings with bad lines between them and an input
// that ends at once: every ping and every bad line is answered, and
// Serve returns nil.
func TestLineTransport(t *testing.T) {
	const n = 200
	lines := []string{`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`}
	for i := 1; i <= n; i++ {
		lines = append(lines, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping"}`, i), "{", `{"id":[]}`)
	}
	var out lockedBuffer
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	err := Serve(ctx, &LineTransport{In: strings.NewReader(strings.Join(lines, "\n")), Out: &out}, Config{Cwd: t.TempDir(), Getenv: func(string) string { return "" }})
	if err != nil || ctx.Err() != nil {
		t.Fatalf("Serve: %v (%v)", err, ctx.Err())
	}
	got := out.b.String()
	for i := 1; i <= n; i++ {
		if want := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{}}`+"\n", i); !strings.Contains(got, want) {
			t.Fatalf("no answer to ping %d:\n%s", i, got)
		}
	}
	if c := strings.Count(got, `"code":-32700`); c != n {
		t.Errorf("%d parse errors, want %d", c, n)
	}
	if c := strings.Count(got, `"code":-32600`); c != n {
		t.Errorf("%d invalid requests, want %d", c, n)
	}
	if c := strings.Count(got, "\n"); c != 3*n+1 {
		t.Errorf("%d lines, want %d", c, 3*n+1)
	}
}
