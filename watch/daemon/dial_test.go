package daemon

import (
	"net"
	"os"
	"path/filepath"
	"testing"
)

// TestDialNoDaemon: every command asks at start whether a daemon
// answers, and most often none runs: then Dial makes no socket. With a
// listener it connects; with a socket file and no listener (a daemon
// killed), it says none answers.
func TestDialNoDaemon(t *testing.T) {
	store := t.TempDir()
	if err := os.Chmod(store, 0o700); err != nil {
		t.Fatal(err)
	}
	if Answers(store) {
		t.Fatal("a daemon answers for a store without one")
	}
	if n := testing.AllocsPerRun(10, func() { Answers(store) }); n > 8 {
		t.Errorf("Answers without a socket: %v allocations, want at most 8 (no socket made)", n)
	}

	p := SocketPath(store)
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("unix", p)
	if err != nil {
		t.Skipf("no unix sockets here: %v", err)
	}
	if !Answers(store) {
		t.Error("no answer from a listening socket")
	}
	l.(*net.UnixListener).SetUnlinkOnClose(false)
	l.Close()
	if _, err := os.Lstat(p); err != nil {
		t.Fatalf("the socket file went: %v", err)
	}
	if Answers(store) {
		t.Error("an answer from a socket nobody listens on")
	}
}
