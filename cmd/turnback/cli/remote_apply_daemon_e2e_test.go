package cli

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/turnback/turnback/internal/testtier"
)

// TestRemoteCLIPullApplyThroughDaemon: with a watch daemon serving the
// store, pull --apply runs in it: an edit made while the daemon watches
// is a conflict (exit 3, nothing changed), --force keeps it in a
// checkpoint, the user's other edit stays, and status, undo and verify
// then work through the daemon.
func TestRemoteCLIPullApplyThroughDaemon(t *testing.T) {
	testtier.Slow(t)
	const url = "s3://tb-apply-daemon/x"
	srv, a := remoteOrigin(t, url)
	a.write("f.txt", "one\n")
	a.write("g.txt", "g\n")
	pushTurn(a, map[string]string{"f.txt": "two\n"})
	b := remoteCloneDaemon(t, srv, url, "default")

	pushTurn(a, map[string]string{"f.txt": "three\n", "new.txt": "new\n"})
	b.write("g.txt", "mine\n")
	b.write("f.txt", "B's edit\n")
	if r := b.run("pull", "--apply"); r.code != 3 || !strings.Contains(r.stderr, "  f.txt: modified since\n") {
		t.Fatalf("pull --apply over an edit, through the daemon: %s", r)
	}
	if string(b.read("f.txt")) != "B's edit\n" {
		t.Fatal("the refused apply changed f.txt")
	}
	if _, err := os.Lstat(b.path("new.txt")); !os.IsNotExist(err) {
		t.Fatalf("the refused apply created new.txt: %v", err)
	}
	r := b.run("--force", "pull", "--apply")
	if r.code != 0 || !strings.Contains(r.stdout, "applied 1 turn") {
		t.Fatalf("pull --apply --force through the daemon: %s", r)
	}
	for p, want := range map[string]string{"f.txt": "three\n", "new.txt": "new\n", "g.txt": "mine\n"} {
		if got := string(b.read(p)); got != want {
			t.Errorf("%s after the apply: %q, want %q", p, got, want)
		}
	}
	m := regexp.MustCompile(`checkpoint [0-9a-f]{12} \(turnback restore ([0-9a-f]{12}) goes back\)`).FindStringSubmatch(r.stdout)
	if m == nil {
		t.Fatalf("apply names no checkpoint: %s", r)
	}
	if r := b.ok("status"); r.stdout != "M g.txt\n" {
		t.Fatalf("status after the apply: %s", r)
	}
	b.ok("verify")
	b.ok("restore", m[1])
	if got := string(b.read("f.txt")); got != "B's edit\n" {
		t.Fatalf("the checkpoint lacks the edit: f.txt %q", got)
	}
}
