package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/turnback/turnback/cas"
)

// TestAdoptKilledWhileWaiting: adopt killed while it waits for a process
// reading this folder's own store (a long log, say) leaves that store
// where commands find it: its own turn is still listed, and adopt run
// again still refuses to replace it. Before, adopt moved the store aside
// before it waited, and a kill left it there, out of every command's
// reach.
func TestAdoptKilledWhileWaiting(t *testing.T) {
	t.Parallel()
	e := newCLI(t, "app")
	e.write("a.txt", "a\n")
	e.ok("snap")
	e.write("a.txt", "b\n")
	e.ok("end")
	old := e.dir
	e.dir = filepath.Join(e.base, "app-renamed")
	if err := os.Rename(old, e.dir); err != nil {
		t.Fatal(err)
	}
	e.write("own.txt", "own\n")
	e.ok("snap")
	e.write("own.txt", "own turn\n")
	e.ok("end")
	own, _ := filepath.Glob(filepath.Join(e.xdg, "turnback", "app-renamed-*"))
	if len(own) != 1 {
		t.Fatalf("stores of the renamed folder: %v", own)
	}

	held, err := cas.OpenBadger(t.Context(), filepath.Join(own[0], "db"), cas.BadgerOptions{Holder: "test", ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	p := e.start("adopt", old)
	// Until the store is moved aside, or long enough for adopt to wait.
	for deadline := time.Now().Add(2 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if _, err := os.Lstat(own[0]); err != nil {
			break
		}
	}
	_ = p.cmd.Process.Kill()
	_ = p.cmd.Wait()
	held.Close()

	if r := e.ok("log"); !strings.Contains(r.stdout, "+0 ~1 -0") {
		t.Errorf("the folder's own turn after adopt was killed:\n%v", r)
	}
	if r := e.expect(1, "adopt", old); !strings.Contains(r.stderr, "history of its own") {
		t.Errorf("adopt again: %v", r)
	}
}
