package cli

import (
	"strings"
	"testing"

	"github.com/turnback/turnback/cas/s3/s3test"
)

// TestRemoteCLIThroughDaemon: with watch daemons serving both stores,
// each started without the AWS_* variables, remote show, push and pull
// run through them (the daemons' request counts grow) with the
// caller's credentials, print what they print without a daemon, and a
// diverged pull is still exit 3 with its message.
func TestRemoteCLIThroughDaemon(t *testing.T) {
	srv := s3test.Start(t)
	a := remoteEnv(t, srv, "a")
	a.ok("remote", "set", "s3://tb-daemon/x", "--create")
	show := a.ok("remote", "show").stdout
	a.write("f.txt", "one\n")
	a.ok("snap")
	a.write("f.txt", "two\n")
	a.ok("end")
	detach := func(e *cliEnv) {
		t.Helper()
		creds := e.extra
		e.extra = nil // the daemon has no credentials of its own
		e.ok("watch", "--detach")
		e.extra = creds
		t.Cleanup(func() { e.run("watch", "--stop") })
	}
	requests := func(e *cliEnv) int {
		t.Helper()
		var st struct {
			PID      int `json:"pid"`
			Requests int `json:"requests"`
		}
		e.okJSON(&st, "watch", "--status")
		if st.PID == 0 {
			t.Fatal("no daemon")
		}
		return st.Requests
	}
	detach(a)
	r0 := requests(a)
	if got := a.ok("remote", "show").stdout; got != show {
		t.Errorf("remote show through the daemon:\n%s\nwithout:\n%s", got, show)
	}
	if r := a.ok("push"); !strings.HasPrefix(r.stdout, "pushed default: ") {
		t.Fatalf("push: %s", r)
	}
	if r1 := requests(a); r1 < r0+2 {
		t.Fatalf("the daemon served %d requests for remote show and push, want 2 or more", r1-r0)
	}
	b := remoteClone(t, srv, "s3://tb-daemon/x", "default")
	b.same("clone", a.tree())
	detach(b)

	a.ok("snap")
	a.write("f.txt", "three\n")
	a.ok("end")
	a.ok("push")
	r0 = requests(b)
	if r := b.ok("pull"); !strings.HasPrefix(r.stdout, "pulled default: turn 2, ") {
		t.Fatalf("pull: %s", r)
	}
	if requests(b) <= r0 {
		t.Fatal("the daemon did not run the pull")
	}
	b.ok("redo") // nothing to redo; the folder is left as it was
	b.write("f.txt", "b's\n")
	b.ok("snap")
	b.write("f.txt", "b's turn\n")
	b.ok("end")
	b.ok("undo")
	a.ok("snap")
	a.write("f.txt", "four\n")
	a.ok("end")
	a.ok("push")
	if r := b.run("pull"); r.code != 3 || !strings.Contains(r.stderr, "have diverged") {
		t.Fatalf("a diverged pull through the daemon: %s", r)
	}
}
