//go:build unix

package cli

// Issue 30 item 8: serve --listen refuses an API token other users can
// read, or a store they can reach, as ssh refuses a readable key.

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/turnback/turnback/watch/daemon"
)

// TestServeTokenPrivate: with api.token 0644, a store directory 0755 or
// 0770, or a token that is a symbolic link, serve --listen and serve
// --print-token exit 1 naming the file, its mode and the chmod that
// fixes it, and no daemon runs; once fixed, serve --listen serves.
func TestServeTokenPrivate(t *testing.T) {
	t.Parallel()
	e := newCLI(t, "work")
	e.store = filepath.Join(e.base, "store")
	e.write("a.txt", "one\n")
	e.ok("serve", "--print-token")
	tokFile := filepath.Join(e.store, daemon.TokenFile)
	refused := func(what, want string) {
		t.Helper()
		for _, args := range [][]string{{"serve", "--listen", "127.0.0.1:0"}, {"serve", "--print-token"}} {
			r := e.expect(1, args...)
			if r.stderr != want || r.stdout != "" {
				t.Errorf("%s: %v\nwant stderr %q", what, r, want)
			}
		}
		if _, ok := daemon.Ping(e.store); ok {
			t.Fatalf("%s: a daemon runs", what)
		}
	}
	chmod := func(p string, m os.FileMode) {
		t.Helper()
		if err := os.Chmod(p, m); err != nil {
			t.Fatal(err)
		}
	}

	chmod(tokFile, 0o644)
	refused("token 0644", "turnback: watch: the API token "+tokFile+" has mode 0644: other users can read it and use the API as you; "+
		"run: chmod 600 "+tokFile+"\n")
	chmod(tokFile, 0o640)
	refused("token 0640", "turnback: watch: the API token "+tokFile+" has mode 0640: other users can read it and use the API as you; "+
		"run: chmod 600 "+tokFile+"\n")
	chmod(tokFile, 0o600)
	for _, m := range []os.FileMode{0o755, 0o770, 0o701} {
		chmod(e.store, m)
		refused("store "+m.String(), "turnback: watch: the store "+e.store+" holding the API token has mode "+
			"0"+strconvOctal(m)+": other users can reach it; run: chmod 700 "+e.store+"\n")
	}
	chmod(e.store, 0o700)

	// A token that is a link (to a private file) is refused too.
	elsewhere := filepath.Join(e.base, "token-elsewhere")
	if err := os.Rename(tokFile, elsewhere); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(elsewhere, tokFile); err != nil {
		t.Fatal(err)
	}
	refused("token link", "turnback: watch: the API token "+tokFile+" is not a regular file; remove it (a new token is made)\n")
	if err := os.Rename(elsewhere, tokFile); err != nil {
		t.Fatal(err)
	}

	// Fixed: it serves.
	cmd := e.command("serve", "--listen", "127.0.0.1:0")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	for {
		if info, ok := daemon.PingWithin(e.store, time.Second); ok && info.Ready && info.Listen != "" {
			break
		}
		select {
		case err := <-exited:
			t.Fatalf("serve exited: %v", err)
		case <-time.After(20 * time.Millisecond):
		}
	}
	_ = cmd.Process.Signal(syscall.SIGTERM)
	if err := <-exited; err != nil {
		t.Errorf("serve exited: %v", err)
	}
}

func strconvOctal(m os.FileMode) string {
	s := ""
	for v := uint32(m.Perm()); v > 0 || s == ""; v /= 8 {
		s = string(rune('0'+v%8)) + s
	}
	return s
}
