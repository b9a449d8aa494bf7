package cli

import (
	"bytes"
	"runtime"
	"testing"
)

// TestPager: on a terminal, log, diff and show go through $PAGER (LESS
// set to FRX for less); piped, or for other commands, or with --json,
// never.
func TestPager(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the pager runs through sh")
	}
	for _, c := range []struct {
		args  []string
		tty   bool
		paged bool
	}{
		{[]string{"log"}, true, true},
		{[]string{"-C", "x", "diff", "@1"}, true, true},
		{[]string{"show"}, true, true},
		{[]string{"log"}, false, false},
		{[]string{"--json", "log"}, true, false},
		{[]string{"status"}, true, false},
	} {
		var out bytes.Buffer
		env := map[string]string{"PAGER": `sed "s/^/paged($LESS): /"`}
		g := &globals{stdout: &out, stderr: &out, outTTY: c.tty, getenv: func(k string) string { return env[k] }}
		stop := g.startPager(newRootCmd(g), c.args)
		_, _ = g.stdout.Write([]byte("line\n"))
		stop()
		want := "line\n"
		if c.paged {
			want = "paged(FRX): line\n"
		}
		if out.String() != want {
			t.Errorf("%q on a terminal %v: %q, want %q", c.args, c.tty, out.String(), want)
		}
	}
}
