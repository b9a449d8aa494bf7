package cli

import (
	"strings"
	"testing"

	"github.com/turnback/turnback/cas/s3/s3test"
)

// TestRemoteCLIPullKeepsUndo (issue 30): in a clone, undo --force and a
// pull with nothing new keep the undo (exit 0, "nothing to pull"), and
// redo brings back what the undo replaced. With a new turn on the
// remote, a pull over a local undo is refused with exit 3 saying why
// and what to do, and changes nothing.
func TestRemoteCLIPullKeepsUndo(t *testing.T) {
	srv := s3test.Start(t)
	a := remoteEnv(t, srv, "a")
	a.ok("remote", "set", "s3://tb-pull-keep/p", "--create")
	a.write("f.txt", "zero\n")
	for _, v := range []string{"one\n", "two\n"} {
		a.ok("--session", "s", "snap")
		a.write("f.txt", v)
		a.ok("--session", "s", "end")
	}
	a.ok("--session", "s", "push")
	b := remoteClone(t, srv, "s3://tb-pull-keep/p", "s")
	b.write("f.txt", "B's edit\n")
	b.ok("--session", "s", "undo", "--force")
	if got := string(b.read("f.txt")); got != "one\n" {
		t.Fatalf("after undo: %q", got)
	}
	if r := b.ok("--session", "s", "pull"); r.stdout != "nothing to pull: session s here holds everything the remote's does; kept as it is\n" {
		t.Fatalf("pull: %s", r)
	}
	if r := b.ok("--session", "s", "redo"); strings.Contains(r.stdout, "nothing to redo") {
		t.Fatalf("redo after pull: %s", r)
	}
	if got := string(b.read("f.txt")); got != "B's edit\n" {
		t.Fatalf("after redo: %q", got)
	}

	a.ok("--session", "s", "snap")
	a.write("f.txt", "three\n")
	a.ok("--session", "s", "end")
	a.ok("--session", "s", "push")
	b.ok("--session", "s", "undo", "--force")
	logBefore := b.ok("--session", "s", "log", "--json").stdout
	r := b.run("--session", "s", "pull")
	const want = "turnback: the local session and the remote's have diverged: session s: turn 2 is undone here, " +
		"turn 3 is only on the remote; nothing was changed (redo, then pull; or push to replace the remote's " +
		"session with this one; or clone the remote's into another folder)\n"
	if r.code != 3 || r.stdout != "" || r.stderr != want {
		t.Fatalf("pull over a local undo: %s", r)
	}
	if got := b.ok("--session", "s", "log", "--json").stdout; got != logBefore {
		t.Fatalf("log changed:\n%s\n%s", logBefore, got)
	}
	b.ok("--session", "s", "redo")
	if r := b.ok("--session", "s", "pull"); !strings.HasPrefix(r.stdout, "pulled s: turn 3, ") {
		t.Fatalf("pull after redo: %s", r)
	}
}
