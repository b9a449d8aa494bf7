//go:build unix

package cli

import (
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/turnback/turnback/internal/fullbin"
)

// TestForwardToFull: turnback hands turnback-full's own commands to it,
// so their output is turnback-full's, byte for byte; without
// turnback-full beside it, those commands fail saying how to install it
// and every other command still works.
func TestForwardToFull(t *testing.T) {
	e := newCLI(t, "work")
	e.write("a.txt", "one\n")
	fullPath := filepath.Join(filepath.Dir(e.bin), fullbin.Name)
	for _, args := range [][]string{
		{"remote", "show"},
		{"--json", "remote", "show"},
		{"help", "push"},
		{"mcp", "--help"},
		{"pull", "--nosuch"},
	} {
		via := e.run(args...)
		cmd := e.command(args...)
		cmd.Path, cmd.Args[0] = fullPath, fullPath
		out, err := cmd.Output()
		code := 0
		if err != nil {
			code = cmd.ProcessState.ExitCode()
		}
		if via.stdout != string(out) || via.code != code {
			t.Errorf("%q: turnback exits %d with\n%s\nturnback-full exits %d with\n%s", args, via.code, via.stdout, code, out)
		}
		if args[0] == "remote" && (via.code != 1 || !strings.Contains(via.stdout+via.stderr, "no remote")) {
			t.Errorf("%q: %v", args, via)
		}
	}

	// turnback alone: a copy in a folder of its own.
	alone := filepath.Join(e.base, "alone", filepath.Base(e.bin))
	data, err := os.ReadFile(e.bin)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(alone), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(alone, data, 0o755); err != nil {
		t.Fatal(err)
	}
	e.bin = alone
	for _, name := range []string{"remote", "push", "pull", "clone", "mcp", "ui"} {
		r := e.expect(1, name)
		want := "turnback: " + name + " is a command of turnback-full: turnback-full is not installed beside " + alone +
			": install both with go install github.com/turnback/turnback/cmd/...@latest (in a clone: go install ./cmd/...)\n"
		if r.stdout != "" || r.stderr != want {
			t.Errorf("%s alone: stdout %q, stderr %q, want %q", name, r.stdout, r.stderr, want)
		}
	}
	if r := e.ok("snap"); !strings.HasPrefix(r.stderr, "turn 1 of session default started") {
		t.Errorf("snap alone: %v", r)
	}
}

// TestDaemonRunsFull: a watch daemon, started by hand or by a command,
// runs turnback-full when it is beside turnback, so that a push or pull
// can run in it; else turnback itself.
func TestDaemonRunsFull(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc/PID/exe")
	}
	e := newCLI(t, "work")
	e.write("a.txt", "one\n")
	e.store = filepath.Join(e.base, "store")
	daemonExe := func() string {
		t.Helper()
		var doc struct {
			Daemons []struct {
				Pid int `json:"pid"`
			} `json:"daemons"`
		}
		// Only this test's daemons: other packages' tests run beside it.
		e.okJSON(&doc, "watch", "--list", "--under", e.base)
		if len(doc.Daemons) != 1 {
			t.Fatalf("%d daemons", len(doc.Daemons))
		}
		exe, err := os.Readlink("/proc/" + strconv.Itoa(doc.Daemons[0].Pid) + "/exe")
		if err != nil {
			t.Fatal(err)
		}
		return exe
	}
	t.Cleanup(func() { e.run("watch", "--stop") })
	e.ok("watch", "--detach")
	if got, want := daemonExe(), filepath.Join(filepath.Dir(e.bin), fullbin.Name); got != want {
		t.Errorf("watch --detach: the daemon runs %s, want %s", got, want)
	}
	e.ok("watch", "--stop")
	e.autoWatch = true
	e.extra = append(e.extra, "TURNBACK_AUTO_WATCH=1")
	e.ok("snap")
	waitFor(t, "the daemon started by snap answers", func() bool {
		return strings.Contains(e.run("--json", "watch", "--list", "--under", e.base).stdout, `"answering": true`)
	})
	if got, want := daemonExe(), filepath.Join(filepath.Dir(e.bin), fullbin.Name); got != want {
		t.Errorf("snap: the daemon runs %s, want %s", got, want)
	}
}
