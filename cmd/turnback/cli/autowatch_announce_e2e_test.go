//go:build linux

package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	daemons "github.com/turnback/turnback/internal/daemon"
	"github.com/turnback/turnback/internal/testtier"
	"github.com/turnback/turnback/manifest/treetest"
	"github.com/turnback/turnback/watch/daemon"
)

// openPTY opens a pseudo-terminal: its controller and its terminal end.
func openPTY(t *testing.T) (ctl, tty *os.File) {
	t.Helper()
	ctl, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	if err := unix.IoctlSetPointerInt(int(ctl.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		ctl.Close()
		t.Skipf("unlock pseudo-terminal: %v", err)
	}
	n, err := unix.IoctlGetInt(int(ctl.Fd()), unix.TIOCGPTN)
	if err != nil {
		ctl.Close()
		t.Skipf("pseudo-terminal number: %v", err)
	}
	tty, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		ctl.Close()
		t.Skipf("open pseudo-terminal: %v", err)
	}
	return ctl, tty
}

// runStderrTTY runs the binary with stderr on a pseudo-terminal and
// returns stdout, what reached the terminal (with \r\n as \n) and the
// exit code.
func runStderrTTY(t *testing.T, e *cliEnv, args ...string) (string, string, int) {
	t.Helper()
	return runStderrTTYIn(t, e, "", args...)
}

// runStderrTTYIn is runStderrTTY with stdin.
func runStderrTTYIn(t *testing.T, e *cliEnv, stdin string, args ...string) (string, string, int) {
	t.Helper()
	ctl, tty := openPTY(t)
	defer ctl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := e.execCommandContext(ctx, args...)
	var so bytes.Buffer
	cmd.Stdout, cmd.Stderr, cmd.Stdin = &so, tty, strings.NewReader(stdin)
	if err := cmd.Start(); err != nil {
		tty.Close()
		t.Fatal(err)
	}
	tty.Close() // the child holds it now: reads end once it exits
	var term bytes.Buffer
	read := make(chan struct{})
	go func() {
		defer close(read)
		_, err := io.Copy(&term, ctl)
		if err != nil && !errors.Is(err, syscall.EIO) {
			t.Errorf("read the pseudo-terminal: %v", err)
		}
	}()
	_ = cmd.Wait()
	<-read
	return so.String(), strings.ReplaceAll(term.String(), "\r\n", "\n"), cmd.ProcessState.ExitCode()
}

// TestAutoWatchAnnounced: a command that starts a watch daemon by itself
// says so in one line on a terminal, the first time for its store only;
// piped, under --json or in a hook it says nothing.
func TestAutoWatchAnnounced(t *testing.T) {
	testtier.Slow(t)
	e := newBinEnv(t)
	base := e.base
	e.setenv("TURNBACK_AUTO_WATCH", "5")
	e.setenv("TURNBACK_LOCK_WAIT", "10s")
	const line = "turnback: started a watch daemon for this folder (5 files), it stops after 30 idle minutes; stop it now: turnback watch --stop; never start one: TURNBACK_AUTO_WATCH=0\n"
	newFolder := func(name string) []string {
		wt, store := filepath.Join(base, name), filepath.Join(base, name+".store")
		files := map[string]string{}
		for i := range 5 {
			files[fmt.Sprintf("d%d/f%d.txt", i%2, i)] = fmt.Sprintf("file %d\n", i)
		}
		treetest.PutAll(t, wt, files)
		t.Cleanup(func() { e.execOut("", "-C", wt, "--store", store, "watch", "--stop") })
		return []string{"-C", wt, "--store", store}
	}
	started := func(g []string, why string) {
		t.Helper()
		waitFor(t, why+": a daemon serves the folder", func() bool {
			_, ok := daemon.Ping(g[3])
			return ok
		})
	}
	stop := func(g []string) {
		t.Helper()
		if so, se, code := e.execOut("", append(g, "watch", "--stop")...); code != 0 {
			t.Fatalf("watch --stop: exit %d\n%s%s", code, so, se)
		}
		waitFor(t, "the daemon stopped", func() bool { _, ok := daemon.Ping(g[3]); return !ok })
	}

	// On a terminal: the line, once, after the command's own output.
	g := newFolder("tty")
	_, term, code := runStderrTTY(t, e, append(g, "snap", "-m", "one")...)
	if code != 0 || strings.Count(term, line) != 1 || !strings.HasSuffix(term, line) {
		t.Fatalf("first auto-start on a terminal: exit %d, terminal %q; want it to end with %q", code, term, line)
	}
	started(g, "snap on a terminal")
	stop(g)
	_, term, code = runStderrTTY(t, e, append(g, "status")...)
	if code != 0 || strings.Contains(term, "watch daemon") {
		t.Errorf("second auto-start for the store: exit %d, terminal %q; want no line", code, term)
	}
	started(g, "status on a terminal")

	// Piped: no line, and no marker, so a terminal later is told.
	g = newFolder("pipe")
	so, se, code := e.execOut("", append(g, "snap", "-m", "one")...)
	if code != 0 || strings.Contains(se, "watch daemon") {
		t.Errorf("auto-start with stderr piped: exit %d, stderr %q; want no line\n%s", code, se, so)
	}
	started(g, "snap piped")
	if _, err := os.Stat(filepath.Join(g[3], daemons.AnnouncedName)); err == nil {
		t.Errorf("a piped auto-start left %s", daemons.AnnouncedName)
	}

	// --json on a terminal: no line.
	g = newFolder("json")
	_, term, code = runStderrTTY(t, e, append(g, "--json", "snap", "-m", "one")...)
	if code != 0 || strings.Contains(term, "watch daemon") {
		t.Errorf("auto-start under --json: exit %d, terminal %q; want no line", code, term)
	}
	started(g, "snap --json")

	// An agent's hook on a terminal: no line.
	g = newFolder("hook")
	payload, _ := json.Marshal(map[string]string{"session_id": "s1", "cwd": g[1], "hook_event_name": "UserPromptSubmit", "prompt": "add a form"})
	_, term, code = runStderrTTYIn(t, e, string(payload), append(g, "hook", "claude")...)
	if code != 0 || strings.Contains(term, "watch daemon") {
		t.Errorf("auto-start in a hook: exit %d, terminal %q; want no line", code, term)
	}
	started(g, "hook claude")
}
