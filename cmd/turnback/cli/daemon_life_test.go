//go:build unix

package cli

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/turnback/turnback/internal/testtier"
	"github.com/turnback/turnback/manifest/treetest"
	"github.com/turnback/turnback/watch/daemon"
)

// TestDaemonSameOutput runs one script of commands on two identical
// folders, one served by a watch daemon and one not, and compares what
// every command printed and its exit code.
func TestDaemonSameOutput(t *testing.T) {
	testtier.Slow(t)
	type step struct {
		args []string
		edit map[string]string // written before the command
		del  []string
		// stderr of captures says how many files were read, which the
		// daemon's first capture changes: compared for the others only.
		sameStderr bool
	}
	steps := []step{
		{args: []string{"snap", "-m", "first"}, edit: map[string]string{"a.txt": "a\n", "src/b.go": "package b\n"}},
		{args: []string{"status"}, edit: map[string]string{"src/c.go": "package c\n", "a.txt": "A\n"}, sameStderr: true},
		{args: []string{"--json", "status"}, sameStderr: true},
		{args: []string{"diff"}, sameStderr: true},
		{args: []string{"end"}},
		{args: []string{"snap", "-m", "second"}},
		{args: []string{"end"}, del: []string{"src/b.go"}},
		{args: []string{"undo"}, sameStderr: true},
		{args: []string{"redo"}, sameStderr: true},
		{args: []string{"undo"}, edit: map[string]string{"src/c.go": "edited outside the turn\n"}, sameStderr: true}, // nothing to conflict: turn 2 deleted b.go only
		{args: []string{"redo"}, edit: map[string]string{"src/b.go": "in the way\n"}, sameStderr: true},              // conflict: exit 3
		{args: []string{"--json", "redo"}, sameStderr: true},
		{args: []string{"show", "nosuchsnapshot"}, sameStderr: true}, // exit 1
		{args: []string{"verify"}, sameStderr: true},
		{args: []string{"--session", "other", "status"}, sameStderr: true},
		{args: []string{"--session", "bad name", "status"}, sameStderr: true}, // exit 2
	}
	e := newBinEnv(t)
	base := e.base
	e.setenv("XDG_DATA_HOME", filepath.Join(base, "xdg"))
	e.setenv("TURNBACK_LOCK_WAIT", "0")
	script := make([]scriptStep, len(steps))
	for i, s := range steps {
		script[i] = scriptStep{args: s.args, edit: s.edit, del: s.del}
	}
	// The same folder name, so that messages naming it match.
	plain := runScript(t, e, filepath.Join(base, "plain", "proj"), false, script)
	served := runScript(t, e, filepath.Join(base, "served", "proj"), true, script)
	norm := func(s string) string {
		s = strings.ReplaceAll(s, filepath.Join(base, "plain"), "BASE")
		return strings.ReplaceAll(s, filepath.Join(base, "served"), "BASE")
	}
	codes := map[int]bool{}
	for i, s := range steps {
		p, d := plain[i], served[i]
		codes[p.code] = true
		if p.code != d.code {
			t.Errorf("turnback %s: exit %d without the daemon, %d through it\nstderr: %q / %q", strings.Join(s.args, " "), p.code, d.code, p.stderr, d.stderr)
		}
		if a, b := norm(p.stdout), norm(d.stdout); a != b && !strings.Contains(a, `"stats"`) {
			t.Errorf("turnback %s: stdout differs\nwithout: %q\nthrough: %q", strings.Join(s.args, " "), a, b)
		}
		if a, b := norm(p.stderr), norm(d.stderr); s.sameStderr && a != b {
			t.Errorf("turnback %s: stderr differs\nwithout: %q\nthrough: %q", strings.Join(s.args, " "), a, b)
		}
	}
	for _, c := range []int{0, 1, 2, 3} {
		if !codes[c] {
			t.Errorf("the script never exits %d: it should show every exit code", c)
		}
	}
}

// daemonLifeFolder skips the test off Linux (inotify) and makes a work
// tree with one file and a store for it, which TURNBACK_STORE names, with
// TURNBACK_LOCK_WAIT set to lockWait; it returns the user, the work
// tree and the store.
func daemonLifeFolder(t *testing.T, lockWait string) (e *cliEnv, wt, store string) {
	t.Helper()
	if !isLinux() {
		t.Skip("inotify")
	}
	e = newBinEnv(t)
	wt, store = e.dir, filepath.Join(e.base, "st")
	treetest.PutAll(t, wt, map[string]string{"f": "x"})
	e.setenv("TURNBACK_STORE", store)
	e.setenv("TURNBACK_LOCK_WAIT", lockWait)
	return e, wt, store
}

// TestDaemonLifecycle: --detach, the socket's mode, a second daemon,
// --stop, the idle timeout, and a socket left by a killed daemon.
func TestDaemonLifecycle(t *testing.T) {
	e, wt, store := daemonLifeFolder(t, "0")
	tb := func(args ...string) (string, string, int) {
		return e.execOut("", append([]string{"-C", wt}, args...)...)
	}
	must := func(args ...string) string {
		t.Helper()
		so, se, code := tb(args...)
		if code != 0 {
			t.Fatalf("turnback %s: exit %d\n%s%s", strings.Join(args, " "), code, so, se)
		}
		return so
	}
	t.Cleanup(func() { tb("watch", "--stop") })

	if so := must("watch", "--detach"); !strings.HasPrefix(so, "watching "+wt+" (pid ") {
		t.Fatalf("watch --detach printed %q", so)
	}
	sock := daemon.SocketPath(store)
	fi, err := os.Lstat(sock)
	if err != nil || fi.Mode()&fs.ModeSocket == 0 || fi.Mode().Perm() != 0o600 {
		t.Fatalf("socket %s: %v, mode %v; want a socket with mode 0600", sock, err, fi.Mode())
	}
	if so := must("watch", "--detach"); !strings.HasPrefix(so, "already watching "+wt) {
		t.Errorf("a second watch --detach printed %q", so)
	}
	if _, se, code := tb("watch"); code != exitBusy || !strings.Contains(se, "already watches") {
		t.Errorf("a second foreground watch: exit %d, %q; want 4 naming the running daemon", code, se)
	}
	// A command through the daemon while it holds the store.
	var doc daemonSnapDoc
	if err := json.Unmarshal([]byte(must("--json", "snap")), &doc); err != nil || doc.Stats.Watch == nil || !doc.Stats.Watch.Incremental {
		t.Fatalf("snap through the daemon: %+v (%v)", doc, err)
	}
	if so := must("info"); !strings.Contains(so, "\nwatched:    by pid ") {
		t.Errorf("info through the daemon does not say it is watched:\n%s", so)
	}
	if so := must("watch", "--stop"); !strings.HasPrefix(so, "stopped the watch daemon of "+wt) {
		t.Errorf("watch --stop printed %q", so)
	}
	if _, err := os.Lstat(sock); !os.IsNotExist(err) {
		t.Errorf("the socket is still there after --stop: %v", err)
	}
	// The store is free at once: this runs here, without waiting.
	if so := must("--json", "status"); strings.Contains(so, `"watch"`) {
		t.Errorf("status after --stop went through a daemon: %s", so)
	}
	if so := must("info"); !strings.Contains(so, "\nwatched:    no ") {
		t.Errorf("info without a daemon:\n%s", so)
	}
	if so := must("watch", "--stop"); !strings.HasPrefix(so, "no watch daemon for "+wt) {
		t.Errorf("watch --stop without a daemon printed %q", so)
	}

	// Idle timeout.
	must("watch", "--detach", "--idle-timeout", "300ms")
	deadline := time.Now().Add(30 * time.Second)
	for {
		if _, ok := daemon.Ping(store); !ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the daemon is still there long after its idle timeout")
		}
		time.Sleep(50 * time.Millisecond)
	}
	if log, _ := os.ReadFile(filepath.Join(store, "watch.log")); !strings.Contains(string(log), "stopping (idle for 300ms)") {
		t.Errorf("watch.log does not say why the daemon stopped:\n%s", log)
	}

	// A daemon whose socket was removed (a temporary-file cleaner) can be
	// reached by nobody: it lets the store go.
	must("watch", "--detach")
	if err := os.Remove(sock); err != nil {
		t.Fatal(err)
	}
	for i := 0; ; i++ {
		if _, _, code := tb("status"); code == 0 {
			break
		} else if i > 100 {
			t.Fatalf("status after the daemon's socket was removed: exit %d", code)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if log, _ := os.ReadFile(filepath.Join(store, "watch.log")); !strings.Contains(string(log), "was removed or replaced") {
		t.Errorf("watch.log does not say why the daemon stopped:\n%s", log)
	}

	// A daemon killed outright leaves its socket; the next command
	// notices, runs here and removes it.
	so := must("--json", "watch", "--detach")
	var info daemon.Info
	if err := json.Unmarshal([]byte(so), &info); err != nil || info.PID == 0 {
		t.Fatalf("watch --detach --json: %q (%v)", so, err)
	}
	if err := syscall.Kill(info.PID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	// The signal is delivered later: a command meanwhile may still be
	// served, leaving the socket in place. Wait until nothing answers.
	waitFor(t, "the killed daemon stops answering", func() bool { _, ok := daemon.Ping(store); return !ok })
	for i := 0; ; i++ {
		// The killed daemon's lock goes with the process.
		if _, _, code := tb("status"); code == 0 {
			break
		} else if i > 200 {
			t.Fatalf("status after the daemon was killed: exit %d", code)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if _, err := os.Lstat(sock); !os.IsNotExist(err) {
		t.Errorf("the killed daemon's socket was not removed: %v", err)
	}
}

func isLinux() bool { return runtime.GOOS == "linux" }

// TestDaemonHook: agent hooks reach the daemon; stdout stays the agent's.
func TestDaemonHook(t *testing.T) {
	w := newDaemonWorld(t)
	treetest.PutAll(t, w.wt, map[string]string{"main.go": "package main\n"})
	payload := func(event string) string {
		b, _ := json.Marshal(map[string]string{"session_id": "s1", "cwd": w.wt, "hook_event_name": event, "prompt": "-m looks like a flag"})
		return string(b)
	}
	if so, se, code := w.e.execOut(payload("UserPromptSubmit"), "hook", "claude"); code != 0 || so != "" || se != "" {
		t.Fatalf("hook claude UserPromptSubmit: exit %d, stdout %q, stderr %q", code, so, se)
	}
	treetest.PutAll(t, w.wt, map[string]string{"main.go": "package main // changed\n"})
	if so, se, code := w.e.execOut(payload("AfterAgent"), "hook", "gemini"); code != 0 || so != "{}\n" || se != "" {
		t.Fatalf("hook gemini AfterAgent: exit %d, stdout %q, stderr %q", code, so, se)
	}
	so, se, code := w.cli("--session", "s1", "--json", "log")
	if code != 0 {
		t.Fatalf("log: %d %s", code, se)
	}
	var doc struct {
		Turns []struct {
			Message  string `json:"message"`
			Modified int    `json:"modified"`
			Open     bool   `json:"open"`
		} `json:"turns"`
	}
	if err := json.Unmarshal([]byte(so), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Turns) != 1 || doc.Turns[0].Message != "-m looks like a flag" || doc.Turns[0].Open || doc.Turns[0].Modified != 1 {
		t.Fatalf("turns after the hooks: %s", so)
	}
	if info, ok := daemon.Ping(w.store); !ok || info.Requests < 3 {
		t.Errorf("the daemon served %+v; want the hooks' commands among them", info)
	}
}

// TestSocketPath: the socket lives in the store unless the path is too
// long or the store is open to other users; the fallback directory must
// be this user's alone.
func TestSocketPath(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("unix permissions")
	}
	base := t.TempDir()
	mk := func(name string, mode os.FileMode) string {
		p := filepath.Join(base, name)
		if err := os.Mkdir(p, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
		return p
	}
	long := filepath.Join(base, strings.Repeat("x", 120))
	if err := os.Mkdir(long, 0o700); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		store   string
		inStore bool
	}{
		{"private store", mk("private", 0o700), true},
		{"readable store", mk("readable", 0o755), true},
		{"group-writable store", mk("groupw", 0o770), false},
		{"world-writable store", mk("worldw", 0o777), false},
		{"long path", long, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := daemon.SocketPath(tc.store)
			if got := filepath.Dir(p) == tc.store; got != tc.inStore {
				t.Fatalf("daemon.SocketPath(%s) = %s; in the store: %v, want %v", tc.store, p, got, tc.inStore)
			}
			if !tc.inStore && (len(p) >= 100 || !strings.HasSuffix(p, ".sock")) {
				t.Errorf("fallback socket path %s", p)
			}
			if p2 := daemon.SocketPath(tc.store); p2 != p {
				t.Errorf("socketPath is not stable: %s then %s", p, p2)
			}
		})
	}
	shared := mk("shared", 0o777)
	if err := daemon.CheckSocketDir(shared); err == nil || !strings.Contains(err.Error(), "writable by others") {
		t.Errorf("daemon.CheckSocketDir(a 0777 directory) = %v", err)
	}
	if err := daemon.CheckSocketDir(filepath.Join(base, "private")); err != nil {
		t.Errorf("daemon.CheckSocketDir(a 0700 directory) = %v", err)
	}
}

// TestDaemonOtherProtocol: a daemon left running by an older or newer
// turnback (automatic daemons outlive upgrades) gives the store up to a
// client that speaks another protocol: it runs nothing, stops, and the
// client's command runs by itself.
func TestDaemonOtherProtocol(t *testing.T) {
	e, wt, store := daemonLifeFolder(t, "10s")
	t.Cleanup(func() { e.execOut("", "-C", wt, "watch", "--stop") })
	if so, se, code := e.execOut("", "-C", wt, "watch", "--detach"); code != 0 {
		t.Fatalf("watch --detach: exit %d\n%s%s", code, so, se)
	}
	info, ok := daemon.Ping(store)
	if !ok {
		t.Fatal("no daemon after watch --detach")
	}
	if so, _, code := e.execOut("", "-C", wt, "watch", "--status"); code != 0 || so != fmt.Sprintf("watching %s (pid %d)\n", wt, info.PID) {
		t.Errorf("watch --status with a daemon: exit %d, %q", code, so)
	}
	conn, ok := daemon.Dial(store)
	if !ok {
		t.Fatal("cannot reach the daemon")
	}
	defer conn.Close()
	fmt.Fprintf(conn, "GET /v1/status HTTP/1.1\r\nHost: turnback\r\n%s: %d\r\nConnection: close\r\n\r\n", daemon.ProtocolHeader, daemon.Version+1)
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(string(body), `"kind":"stopping"`) {
		t.Fatalf("the daemon answered a client of another protocol %s %s; want 503, kind stopping (nothing ran)", resp.Status, body)
	}
	waitFor(t, "the daemon stops", func() bool { _, ok := daemon.Ping(store); return !ok })
	if log, _ := os.ReadFile(filepath.Join(store, "watch.log")); !strings.Contains(string(log), fmt.Sprintf("a client speaks protocol %d", daemon.Version+1)) {
		t.Errorf("watch.log does not say why the daemon stopped:\n%s", log)
	}
	if so, _, code := e.execOut("", "-C", wt, "watch", "--status"); code != 0 || so != "no watch daemon for "+wt+"\n" {
		t.Errorf("watch --status without a daemon: exit %d, %q", code, so)
	}
	if so, _, _ := e.execOut("", "-C", wt, "--json", "watch", "--status"); so != fmt.Sprintf("{\n  \"running\": false,\n  \"work_tree\": %q\n}\n", wt) {
		t.Errorf("watch --status --json without a daemon: %q", so)
	}
	// The store is free again: a command runs here.
	if so, se, code := e.execOut("", "-C", wt, "--json", "status"); code != 0 || strings.Contains(so, `"watch"`) {
		t.Errorf("status after the daemon gave up: exit %d\n%s%s", code, so, se)
	}
}

// TestCPUProfile: TURNBACK_CPUPROFILE writes a pprof CPU profile of the
// command (gzip-compressed protobuf) and leaves its output unchanged; a
// path that cannot be created is reported and the command still runs.
func TestCPUProfile(t *testing.T) {
	e := newBinEnv(t)
	base := e.base
	wt := filepath.Join(base, "wt")
	treetest.PutAll(t, wt, map[string]string{"a.txt": "a\n"})
	e.setenv("TURNBACK_STORE", filepath.Join(base, "st"))
	prof := filepath.Join(base, "cpu.pprof")
	e.setenv("TURNBACK_CPUPROFILE", prof)
	so, se, code := e.execOut("", "-C", wt, "snap", "-m", "one")
	if code != 0 || len(strings.TrimSpace(so)) != 12 || !strings.HasPrefix(se, "turn 1 of session default started: 1 files") {
		t.Fatalf("snap with a profile: exit %d, %q, %q", code, so, se)
	}
	data, err := os.ReadFile(prof)
	if err != nil || len(data) < 2 || data[0] != 0x1f || data[1] != 0x8b {
		t.Fatalf("profile %s: %v, %d bytes; want a gzip stream", prof, err, len(data))
	}
	e.setenv("TURNBACK_CPUPROFILE", filepath.Join(base, "no", "such", "dir", "p"))
	_, se, code = e.execOut("", "-C", wt, "status")
	if code != 0 || !strings.Contains(se, "turnback: cpu profile: ") {
		t.Errorf("status with an impossible profile path: exit %d, %q", code, se)
	}
}

// scriptStep is one command of a script: the files written and the
// files removed before it, then its arguments.
type scriptStep struct {
	args []string
	edit map[string]string
	del  []string
}

// scriptResult is what one command of a script printed and its exit code.
type scriptResult struct {
	stdout, stderr string
	code           int
}

// runScript makes the folder wt, serves it by a watch daemon if daemon
// is set (stopped at cleanup), and runs steps in it in order.
func runScript(t *testing.T, e *cliEnv, wt string, daemon bool, steps []scriptStep) []scriptResult {
	t.Helper()
	if err := os.MkdirAll(wt, 0o755); err != nil {
		t.Fatal(err)
	}
	if daemon {
		if so, se, code := e.execOut("", "-C", wt, "watch", "--detach"); code != 0 {
			t.Fatalf("watch --detach: exit %d\n%s%s", code, so, se)
		}
		t.Cleanup(func() { e.execOut("", "-C", wt, "watch", "--stop") })
	}
	var out []scriptResult
	for _, s := range steps {
		treetest.PutAll(t, wt, s.edit)
		for _, rel := range s.del {
			if err := os.Remove(filepath.Join(wt, rel)); err != nil {
				t.Fatal(err)
			}
		}
		so, se, code := e.execOut("", append([]string{"-C", wt}, s.args...)...)
		out = append(out, scriptResult{so, se, code})
	}
	return out
}
