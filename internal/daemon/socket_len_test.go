package daemon

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	wd "github.com/turnback/turnback/watch/daemon"
)

// TestListenLongStorePath: a store whose watch.sock path is just short
// enough to be used must be listened on there, whatever the pid: the
// temporary name bound first must fit a socket address too.
func TestListenLongStorePath(t *testing.T) {
	for _, n := range []int{90, 95, 99} {
		base := t.TempDir()
		pad := n - len(base) - len("/watch.sock") - 1
		if pad < 1 {
			t.Skipf("temporary directory %s too long", base)
		}
		store := filepath.Join(base, strings.Repeat("s", pad))
		if err := os.Mkdir(store, 0o700); err != nil {
			t.Fatal(err)
		}
		want := filepath.Join(store, "watch.sock")
		if len(want) != n {
			t.Fatalf("socket path of %d bytes, want %d", len(want), n)
		}
		if got := wd.SocketPath(store); got != want {
			t.Fatalf("%d bytes: socket path %s, want %s", n, got, want)
		}
		d := NewServer(ServerConfig{StoreDir: store})
		if err := d.Listen(); err != nil {
			t.Fatalf("%d bytes: %v", n, err)
		}
		c, err := net.Dial("unix", want)
		if err != nil {
			t.Fatalf("%d bytes: dial: %v", n, err)
		}
		c.Close()
		d.ln.Close()
		entries, _ := os.ReadDir(store)
		for _, e := range entries {
			if e.Name() != "watch.sock" {
				t.Errorf("%d bytes: left %s", n, e.Name())
			}
		}
	}
}
