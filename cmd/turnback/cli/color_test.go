package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/turnback/turnback/cmd/turnback/termout"
)

// TestColorOnTerminalOnly runs the binary under a pseudo-terminal (util-linux
// script) and checks that status and diff are coloured there, and never
// when piped or when NO_COLOR is set.
func TestColorOnTerminalOnly(t *testing.T) {
	scriptBin, err := exec.LookPath("script")
	if err != nil {
		t.Skip("script(1) not available to provide a terminal")
	}
	// The pager is cat: this test is about colour, and less writes
	// terminal control sequences of its own.
	e := newCLI(t, "work").with("TURNBACK_PAGER=cat")
	bin, dir := e.bin, e.dir
	run := func(extraEnv []string, args ...string) string {
		t.Helper()
		cmd := e.with(extraEnv...).execCommand(append([]string{"-C", dir}, args...)...)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		return string(out)
	}
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("one\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	run(nil, "snap")
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("two\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	onTTY := func(extra ...string) string {
		t.Helper()
		line := bin + " -C " + dir + " status; " + bin + " -C " + dir + " diff"
		cmd := exec.Command(scriptBin, "-qec", line, "/dev/null")
		cmd.Env = e.with(extra...).environ()
		out, err := cmd.Output()
		if err != nil {
			t.Skipf("script could not run a terminal here: %v", err)
		}
		return strings.ReplaceAll(string(out), "\r\n", "\n")
	}
	got := onTTY("TERM=xterm")
	for _, want := range []string{termout.AnsiYellow + "M" + termout.AnsiReset + " a.txt\n", termout.AnsiRed + "-one" + termout.AnsiReset, termout.AnsiGreen + "+two" + termout.AnsiReset} {
		if !strings.Contains(got, want) {
			t.Errorf("terminal output lacks %q:\n%q", want, got)
		}
	}
	if got := onTTY("TERM=xterm", "NO_COLOR=1"); strings.Contains(got, "\033[") {
		t.Errorf("NO_COLOR output has escapes: %q", got)
	}
	if got := run(nil, "status") + run(nil, "diff"); strings.Contains(got, "\033[") {
		t.Errorf("piped output has escapes: %q", got)
	}
}
