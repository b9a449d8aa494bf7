//go:build unix

package cli

// The one daemon of a folder under pressure: a client that stalls its
// request, and a command that waits for the store through the daemon.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os/exec"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/turnback/turnback/internal/testtier"
	"github.com/turnback/turnback/manifest/treetest"
	"github.com/turnback/turnback/watch/daemon"
)

// daemonRunLimited runs exactly args, killed after limit; it returns the output,
// the exit code (-1 when killed) and how long the command took.
func daemonRunLimited(e *cliEnv, limit time.Duration, env []string, args ...string) (out string, code int, took time.Duration) {
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	cmd := e.execCommandContext(ctx, args...)
	cmd.Env = append(cmd.Env, env...)
	var b bytes.Buffer
	cmd.Stdout, cmd.Stderr = &b, &b
	start := time.Now()
	err := cmd.Run()
	took = time.Since(start)
	code = 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode() // -1 when killed
	} else if err != nil {
		code = -1
	}
	return b.String(), code, took
}

// daemonDetachPID starts a watch daemon for wt and returns its pid; the
// daemon is woken (SIGCONT) and stopped when the test ends.
func daemonDetachPID(t *testing.T, e *cliEnv, wt string, args ...string) int {
	t.Helper()
	so, se, code := e.execOut("", append([]string{"-C", wt, "--json", "watch", "--detach"}, args...)...)
	var info daemon.Info
	if code != 0 || json.Unmarshal([]byte(so), &info) != nil || info.PID == 0 {
		t.Fatalf("watch --detach: exit %d\n%s%s", code, so, se)
	}
	t.Cleanup(func() {
		_ = syscall.Kill(info.PID, syscall.SIGCONT)
		e.execOut("", "-C", wt, "watch", "--stop")
	})
	return info.PID
}

// freezeProc stops pid with SIGSTOP and, on Linux, waits until the
// kernel says it is stopped. kill returns before the process has taken
// the signal, and on a busy machine it may answer a request meanwhile.
func freezeProc(t *testing.T, pid int) {
	t.Helper()
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS != "linux" {
		return
	}
	deadline := time.Now().Add(10 * time.Second)
	for !daemon.ProcStopped(pid, 0) {
		if time.Now().After(deadline) {
			t.Fatalf("pid %d is not stopped 10 s after SIGSTOP", pid)
		}
		time.Sleep(time.Millisecond)
	}
}

// TestStoppedDaemonCommandBounded: a daemon suspended with Ctrl-Z or
// SIGSTOP must not make a command wait forever (the kernel still queues
// connections to its socket). The command waits for the store as for
// any holder (TURNBACK_LOCK_WAIT) and then exits 4 naming it.
func TestStoppedDaemonCommandBounded(t *testing.T) {
	testtier.Slow(t)
	if runtime.GOOS != "linux" {
		t.Skip("a stopped daemon is told by /proc")
	}
	e, wt, _ := daemonLifeFolder(t, "1s")
	pid := daemonDetachPID(t, e, wt)
	freezeProc(t, pid)
	out, code, took := daemonRunLimited(e, 15*time.Second, nil, "-C", wt, "status")
	if code == -1 {
		t.Fatalf("status with a suspended daemon and TURNBACK_LOCK_WAIT=1s was still waiting after %v (killed); "+
			"want exit 4 naming the daemon\n%s", took.Round(time.Second), out)
	}
	if code != exitBusy || !strings.Contains(out, fmt.Sprint(pid)) {
		t.Errorf("status with a suspended daemon: exit %d after %v; want 4 naming pid %d\n%s", code, took.Round(time.Millisecond), pid, out)
	}
}

// TestStoppedDaemonWatchStatusTruthful: watch --status names a
// suspended daemon as not answering, as watch --list does, and watch
// --stop stops it: it must not say "no watch daemon" while that daemon
// still holds the store.
func TestStoppedDaemonWatchStatusTruthful(t *testing.T) {
	testtier.Slow(t)
	if runtime.GOOS != "linux" {
		t.Skip("a stopped daemon is told by /proc")
	}
	e, wt, _ := daemonLifeFolder(t, "0")
	pid := daemonDetachPID(t, e, wt)
	freezeProc(t, pid)
	if out, _, _ := daemonRunLimited(e, 15*time.Second, nil, "-C", wt, "watch", "--list"); !strings.Contains(out, "not answering") {
		t.Fatalf("watch --list does not see the suspended daemon:\n%s", out)
	}
	if out, code, _ := daemonRunLimited(e, 15*time.Second, nil, "-C", wt, "watch", "--status"); code != 0 ||
		!strings.Contains(out, fmt.Sprintf("(pid %d) is stopped and does not answer", pid)) {
		t.Errorf("watch --status with a suspended daemon (pid %d) holding the store: exit %d, %q; "+
			"want it named as not answering, as watch --list does", pid, code, out)
	}
	if out, code, _ := daemonRunLimited(e, 15*time.Second, nil, "-C", wt, "watch", "--stop"); code != 0 ||
		!strings.Contains(out, fmt.Sprintf("stopped the watch daemon of %s (pid %d)", wt, pid)) {
		t.Errorf("watch --stop with a suspended daemon (pid %d) holding the store: exit %d, %q", pid, code, out)
	}
	if daemon.ProcAlive(pid, 0) { // a zombie counts as gone
		t.Errorf("pid %d still runs after watch --stop", pid)
	}
	if out, code, _ := daemonRunLimited(e, 15*time.Second, []string{"TURNBACK_LOCK_WAIT=0"}, "-C", wt, "status"); code != 0 {
		t.Errorf("status after watch --stop: exit %d\n%s", code, out)
	}
}

// TestStalledClientDoesNotHoldDaemon: a client that sends a request's
// headers and part of its body, then stalls (a client suspended or hung
// mid-request), must not keep the daemon from stopping: its idle timeout
// comes, and watch --stop does not wait for the client.
func TestStalledClientDoesNotHoldDaemon(t *testing.T) {
	testtier.Slow(t)
	e, wt, store := daemonLifeFolder(t, "0")
	daemonDetachPID(t, e, wt, "--idle-timeout", "1s")
	conn, err := net.Dial("unix", daemon.SocketPath(store))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "POST /v1/sessions/default/snap HTTP/1.1\r\nHost: turnback\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{")
	time.Sleep(3 * time.Second) // three idle timeouts
	if _, ok := daemon.Ping(store); ok {
		t.Errorf("the daemon (idle timeout 1s) still runs 3s after a client stalled before sending its request")
	}
	out, code, took := daemonRunLimited(e, 12*time.Second, nil, "-C", wt, "watch", "--stop")
	if code == -1 || took > 8*time.Second {
		t.Errorf("watch --stop with a stalled client: exit %d after %v; want it done within stopGrace (3s) and SIGTERM\n%s",
			code, took.Round(time.Second), out)
	}
}

// TestDaemonHonoursLockWait: docs/contract.md says commands wait for
// one another in the daemon as they do for another process
// (TURNBACK_LOCK_WAIT, then 4). Without a daemon, status while another
// operation holds the store exits 4 at once with TURNBACK_LOCK_WAIT=0;
// through the daemon it must too: the client sends its wait.
//
// The operation held here is an undo an API client streams and stops
// reading: its restore blocks on its progress lines, holding the store.
func TestDaemonHonoursLockWait(t *testing.T) {
	testtier.Slow(t)
	e, wt, store := daemonLifeFolder(t, "0")
	files := map[string]string{}
	for i := range 4000 {
		files[fmt.Sprintf("d%02d/file-with-a-longish-name-%05d.txt", i%40, i)] = "before\n"
	}
	treetest.PutAll(t, wt, files)
	if so, se, code := e.execOut("", "-C", wt, "snap"); code != 0 {
		t.Fatalf("snap: exit %d\n%s%s", code, so, se)
	}
	for p := range files {
		files[p] = "after\n"
	}
	treetest.PutAll(t, wt, files)
	if so, se, code := e.execOut("", "-C", wt, "end"); code != 0 {
		t.Fatalf("end: exit %d\n%s%s", code, so, se)
	}
	daemonDetachPID(t, e, wt)
	conn, err := net.Dial("unix", daemon.SocketPath(store))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	body := `{"count":1}`
	fmt.Fprintf(conn, "POST /v1/sessions/default/undo HTTP/1.1\r\nHost: turnback\r\nAccept: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s",
		daemon.StreamType, len(body), body)
	// The undo runs, fills the socket's buffer with steps, and blocks.
	waitFor(t, "the undo is under way", func() bool {
		info, ok := daemon.PingWithin(store, time.Second)
		return ok && info.IdleSeconds == 0
	})
	time.Sleep(2 * time.Second)
	if info, ok := daemon.PingWithin(store, time.Second); !ok || info.IdleSeconds != 0 {
		t.Fatal("the undo ended before the test could hold the store with it")
	}
	out, code, took := daemonRunLimited(e, 10*time.Second, nil, "-C", wt, "status")
	if code != exitBusy {
		t.Errorf("status through the daemon while an undo holds the store, TURNBACK_LOCK_WAIT=0: exit %d after %v; "+
			"want 4 at once, as without a daemon\n%s", code, took.Round(time.Millisecond), out)
	}
}
