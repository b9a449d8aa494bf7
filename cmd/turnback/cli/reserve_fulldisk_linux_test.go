package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestUndoCommitsWhenDiskFillsDuringRestore: an undo without a daemon
// reserves the space of its commit before it changes a file. When
// another process fills the store's disk while the undo places the
// files, the undo still records what it did: it exits 0, log shows it,
// verify passes, and once space is freed a redo brings the turn back.
// So does a redo whose disk fills the same way.
func TestUndoCommitsWhenDiskFillsDuringRestore(t *testing.T) {
	t.Parallel()
	fsDir := mountTmpfs(t, 100)
	e := newStoreEnv(t)
	e.store = filepath.Join(fsDir, "store")
	e.write("a.txt", "one\n")
	e.write("b.txt", "bee\n")
	ip := e.setup() // the turn is the setting, not the check
	ip.ok("snap")
	e.write("a.txt", "two\n")
	e.remove("b.txt")
	e.write("c.txt", "new\n")
	ip.ok("end")
	filler := filepath.Join(fsDir, "filler")
	full := e.with("TURNBACK_TEST_FILL_AT=commit=" + filler)

	r := full.run("undo")
	if r.code != 0 {
		t.Fatalf("undo with the disk filled before its commit: %v", r)
	}
	if got := string(e.read("a.txt")) + string(e.read("b.txt")); got != "one\nbee\n" {
		t.Errorf("after the undo: %q", got)
	}
	if _, err := os.Stat(e.path("c.txt")); !os.IsNotExist(err) {
		t.Errorf("c.txt after the undo: %v", err)
	}
	// Reading works on the full disk, and shows the undo recorded.
	if out := e.ok("log").stdout; !strings.Contains(out, "undone") {
		t.Errorf("log on the full disk does not show the undo:\n%s", out)
	}
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	e.verify()

	r = full.run("redo")
	if r.code != 0 {
		t.Fatalf("redo with the disk filled before its commit: %v", r)
	}
	if got := string(e.read("a.txt")) + string(e.read("c.txt")); got != "two\nnew\n" {
		t.Errorf("after the redo: %q", got)
	}
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	e.verify()
	if out := e.ok("log").stdout; strings.Contains(out, "undone") {
		t.Errorf("log after the redo still shows the turn undone:\n%s", out)
	}
	e.ok("undo")
	if got := string(e.read("a.txt")); got != "one\n" {
		t.Errorf("after the second undo a.txt is %q", got)
	}
}
