//go:build linux

package cli

import (
	"bytes"
	"context"
	"errors"
	"io"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/turnback/turnback/cmd/turnback/termout"
	"github.com/turnback/turnback/manifest/treetest"
)

// runStdoutTTY runs the binary with stdout on a pseudo-terminal and
// returns what reached it (with \r\n as \n) and the exit code.
func runStdoutTTY(t *testing.T, e *cliEnv, env []string, args ...string) (string, int) {
	t.Helper()
	ctl, tty := openPTY(t)
	defer ctl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := e.execCommandContext(ctx, args...)
	var se bytes.Buffer
	cmd.Stdout, cmd.Stderr, cmd.Env = tty, &se, append(cmd.Env, env...)
	if err := cmd.Start(); err != nil {
		tty.Close()
		t.Fatal(err)
	}
	tty.Close()
	var term bytes.Buffer
	read := make(chan struct{})
	go func() {
		defer close(read)
		if _, err := io.Copy(&term, ctl); err != nil && !errors.Is(err, syscall.EIO) {
			t.Errorf("read the pseudo-terminal: %v", err)
		}
	}()
	_ = cmd.Wait()
	<-read
	return strings.ReplaceAll(term.String(), "\r\n", "\n"), cmd.ProcessState.ExitCode()
}

// TestColorUndoLog: on a terminal, undo's list marks a path as status
// does, and log and show colour the counts (show its marks too) alike; piped, NO_COLOR or TERM=dumb,
// neither writes a colour code.
func TestColorUndoLog(t *testing.T) {
	e := newBinEnv(t)
	dir := e.dir
	env := []string{"TURNBACK_PAGER=cat", "TURNBACK_AUTO_WATCH=0", "TERM=xterm", "NO_COLOR="}
	run := func(args ...string) string {
		t.Helper()
		cmd := e.execCommand(append([]string{"-C", dir}, args...)...)
		cmd.Env = append(cmd.Env, env...)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		return string(out)
	}
	write := func(s string) {
		t.Helper()
		treetest.Put(t, dir, "a.txt", s)
	}
	write("one\n")
	run("snap")
	write("two\n")
	run("end")
	mark := termout.AnsiYellow + "M" + termout.AnsiReset + " a.txt\n"
	counts := termout.AnsiGreen + "+0" + termout.AnsiReset + " " + termout.AnsiYellow + "~1" + termout.AnsiReset + " " + termout.AnsiRed + "-0" + termout.AnsiReset
	if got, code := runStdoutTTY(t, e, env, "-C", dir, "log"); code != 0 || !strings.Contains(got, counts) {
		t.Errorf("log on a terminal: exit %d, %q; want the counts %q", code, got, counts)
	}
	if got, code := runStdoutTTY(t, e, env, "-C", dir, "show"); code != 0 || !strings.Contains(got, "\n"+termout.AnsiYellow+"M"+termout.AnsiReset+" ") || !strings.Contains(got, counts) {
		t.Errorf("show on a terminal: exit %d, %q; want the mark and counts coloured as log's", code, got)
	}
	if got, code := runStdoutTTY(t, e, env, "-C", dir, "undo"); code != 0 || !strings.Contains(got, "  "+mark) {
		t.Errorf("undo on a terminal: exit %d, %q; want the mark %q", code, got, mark)
	}
	if got, code := runStdoutTTY(t, e, append(env, "NO_COLOR=1"), "-C", dir, "redo"); code != 0 || strings.Contains(got, "\033[") || !strings.Contains(got, "  M a.txt\n") {
		t.Errorf("redo on a terminal with NO_COLOR: exit %d, %q; want no colour", code, got)
	}
	if got := run("undo"); strings.Contains(got, "\033[") || !strings.Contains(got, "  M a.txt\n") {
		t.Errorf("undo piped: %q; want no colour", got)
	}
	if got := run("log"); strings.Contains(got, "\033[") {
		t.Errorf("log piped: %q; want no colour", got)
	}
}

// TestColorConflictReport: an undo stopped by a conflict reports it on
// stderr with "conflict" in red when stderr is a terminal, plain when
// piped.
func TestColorConflictReport(t *testing.T) {
	e := newBinEnv(t)
	base := e.base
	dir, store := filepath.Join(base, "work"), filepath.Join(base, "store")
	e.setenv("NO_COLOR", "")
	e.setenv("TURNBACK_AUTO_WATCH", "0")
	g := []string{"-C", dir, "--store", store}
	treetest.PutAll(t, dir, map[string]string{"a.txt": "one\n"})
	for _, args := range [][]string{{"snap"}, {"end"}} {
		if args[0] == "end" {
			treetest.PutAll(t, dir, map[string]string{"a.txt": "two\n"})
		}
		if so, se, code := e.execOut("", append(g, args...)...); code != 0 {
			t.Fatalf("%v: exit %d\n%s%s", args, code, so, se)
		}
	}
	treetest.PutAll(t, dir, map[string]string{"a.txt": "the user's edit\n"})
	_, term, code := runStderrTTY(t, e, append(g, "undo")...)
	if want := "turnback: " + termout.ConflictColor + "conflict" + termout.AnsiReset + ": undo changed nothing"; code != exitConflict || !strings.Contains(term, want) {
		t.Errorf("conflicted undo, stderr on a terminal: exit %d, %q; want %q", code, term, want)
	}
	if _, se, code := e.execOut("", append(g, "undo")...); code != exitConflict || !strings.HasPrefix(se, "turnback: conflict: undo changed nothing") {
		t.Errorf("conflicted undo, piped: exit %d, stderr %q; want the plain report", code, se)
	}
}
