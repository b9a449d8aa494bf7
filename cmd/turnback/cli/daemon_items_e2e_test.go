//go:build unix

package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/turnback/turnback/internal/testtier"
)

// TestDaemonPartlyUndoneRedoCleared: through a watch daemon the CLI
// shows what it shows without one, where the API used to drop what
// Turns and Sessions say beyond the records: log marks a turn a
// partial undo reverted paths of ("[partly undone: a.txt]"), and redo
// with nothing to redo names the turn that replaced the undone ones.
func TestDaemonPartlyUndoneRedoCleared(t *testing.T) {
	testtier.Slow(t)
	if !isLinux() {
		t.Skip("inotify")
	}
	steps := []scriptStep{
		{args: []string{"snap", "-m", "first"}, edit: map[string]string{"a.txt": "a\n", "b.txt": "b\n"}},
		{args: []string{"end"}, edit: map[string]string{"a.txt": "a2\n", "b.txt": "b2\n"}},
		{args: []string{"undo", "--path", "a.txt"}},
		{args: []string{"log"}},
		{args: []string{"--json", "log"}},
		{args: []string{"undo"}},
		{args: []string{"snap", "-m", "second"}},
		{args: []string{"end"}, edit: map[string]string{"c.txt": "c\n"}},
		{args: []string{"redo"}},
		{args: []string{"--json", "redo"}},
	}
	e := newBinEnv(t)
	// A short base: the daemon's socket path must fit in sun_path.
	base, err := os.MkdirTemp("", "tbpu")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	e.xdg = filepath.Join(base, "xdg")
	e.setenv("TURNBACK_LOCK_WAIT", "0")
	e.setenv("TURNBACK_TEST_NOW", "2026-11-22T09:00:00Z")
	e.setenv("TZ", "UTC")
	plain := runScript(t, e, filepath.Join(base, "plain", "proj"), false, steps)
	served := runScript(t, e, filepath.Join(base, "served", "proj"), true, steps)
	norm := func(s string) string {
		s = strings.ReplaceAll(s, filepath.Join(base, "plain"), "BASE")
		return strings.ReplaceAll(s, filepath.Join(base, "served"), "BASE")
	}
	for i, s := range steps {
		p, d := plain[i], served[i]
		if p.code != d.code {
			t.Errorf("turnback %s: exit %d without the daemon, %d through it", strings.Join(s.args, " "), p.code, d.code)
		}
		if a, b := norm(p.stdout), norm(d.stdout); a != b {
			t.Errorf("turnback %s: stdout differs\nwithout: %q\nthrough: %q", strings.Join(s.args, " "), a, b)
		}
		if a, b := norm(p.stderr), norm(d.stderr); a != b && s.args[0] != "snap" && s.args[0] != "end" {
			t.Errorf("turnback %s: stderr differs\nwithout: %q\nthrough: %q", strings.Join(s.args, " "), a, b)
		}
	}
	// What the comparison is about is there at all.
	if !strings.Contains(plain[3].stdout, "[partly undone: a.txt]") || !strings.Contains(plain[4].stdout, `"partly_undone": [`) {
		t.Errorf("log does not mark the partly undone turn:\n%s\n%s", plain[3].stdout, plain[4].stdout)
	}
	if r := plain[8]; !strings.Contains(r.stdout+r.stderr, "turn 2 changed the folder after the undo") {
		t.Errorf("redo does not say which turn replaced the undone ones: %q %q", r.stdout, r.stderr)
	}
}
