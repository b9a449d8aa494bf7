//go:build linux

package cli

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/turnback/turnback/cmd/turnback/termout"
	"github.com/turnback/turnback/manifest/treetest"
)

// TestColorSessionsCheckpointsWarning: on a terminal, sessions and
// checkpoints show a session's name in its colour, log a turn's number
// in its colour, and a warning on stderr has "warning" in its colour;
// piped, every byte is the plain text.
func TestColorSessionsCheckpointsWarning(t *testing.T) {
	e := newBinEnv(t)
	dir, store := filepath.Join(e.base, "work"), filepath.Join(e.base, "store")
	for k, v := range map[string]string{"NO_COLOR": "", "TERM": "xterm", "TURNBACK_AUTO_WATCH": "0", "TURNBACK_PAGER": "cat",
		"TURNBACK_LARGE_DIR_FILES": "3", "TURNBACK_SESSION": "s1"} {
		e.setenv(k, v)
	}
	g := []string{"-C", dir, "--store", store}
	run := func(args ...string) (string, string) {
		t.Helper()
		so, se, code := e.execOut("", append(g, args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d\n%s%s", args, code, so, se)
		}
		return so, se
	}
	treetest.PutAll(t, dir, map[string]string{"a.txt": "one\n"})
	run("snap")
	treetest.PutAll(t, dir, map[string]string{"a.txt": "two\n"})
	run("end")
	run("undo") // a checkpoint
	run("redo")
	treetest.PutAll(t, dir, map[string]string{"gen/1": "x", "gen/2": "x", "gen/3": "x"})
	_, term, code := runStderrTTY(t, e, append(g, "snap")...)
	warn := "turnback: " + termout.WarnColor + "warning" + termout.AnsiReset + ": gen/ is a new directory"
	if code != 0 || !strings.Contains(term, warn) {
		t.Errorf("snap, stderr on a terminal: exit %d, %q; want %q", code, term, warn)
	}
	treetest.PutAll(t, dir, map[string]string{"gen2/1": "x", "gen2/2": "x", "gen2/3": "x"})
	if _, se := run("snap"); !strings.HasPrefix(se, "turnback: warning: gen2/ is a new directory") {
		t.Errorf("snap, stderr piped: %q; want the plain warning", se)
	}
	if _, term, _ := runStderrTTY(t, e, append([]string{"--json"}, append(g, "snap")...)...); strings.Contains(term, "\033[") {
		t.Errorf("snap --json, stderr on a terminal: %q; want no colour", term)
	}
	name := termout.SessionColor + "s1" + termout.AnsiReset
	for _, c := range []struct {
		cmd, want string
	}{
		{"sessions", "\n" + name + " "},
		{"checkpoints", "  " + name + " "},
		{"log", "   " + termout.TurnColor + "1" + termout.AnsiReset + "  "},
	} {
		got, code := runStdoutTTY(t, e, nil, append(g, c.cmd)...)
		if code != 0 || !strings.Contains(got, c.want) {
			t.Errorf("%s on a terminal: exit %d, %q; want %q", c.cmd, code, got, c.want)
		}
		plain, _ := run(c.cmd)
		if strings.Contains(plain, "\033[") || strings.TrimRight(ansiCode.ReplaceAllString(got, ""), "\n") != strings.TrimRight(plain, "\n") {
			t.Errorf("%s piped: %q; want the terminal's text without colour %q", c.cmd, plain, got)
		}
	}
}

// ansiCode matches a colour code.
var ansiCode = regexp.MustCompile("\033\\[[0-9;]*m")
