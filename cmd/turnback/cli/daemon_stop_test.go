//go:build linux

package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/turnback/turnback/internal/testtier"
	"github.com/turnback/turnback/manifest/treetest"
	"github.com/turnback/turnback/watch/daemon"
)

// stopBound is how soon a daemon must be gone after a reason to stop.
const stopBound = 2 * time.Second

// fgDaemon is "turnback watch" run in the foreground by the test, so
// that its exit, exit code and stderr are seen.
type fgDaemon struct {
	cmd    *exec.Cmd
	pid    int
	stderr *syncBuffer
	done   chan struct{} // closed once the process has exited (reaped)
	code   int
}

// startFG starts a foreground daemon for wt and store and waits until
// it answers on its socket (ready: and has made its first capture).
func startFG(t *testing.T, wt, store string, ready bool, args ...string) *fgDaemon {
	t.Helper()
	e := newBinEnv(t)
	d := &fgDaemon{stderr: &syncBuffer{}, done: make(chan struct{})}
	d.cmd = e.with("TURNBACK_LOCK_WAIT=0").execCommand(append([]string{"-C", wt, "--store", store, "watch"}, args...)...)
	d.cmd.Stdout, d.cmd.Stderr = d.stderr, d.stderr
	if err := d.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	d.pid = d.cmd.Process.Pid
	go func() {
		_ = d.cmd.Wait()
		d.code = d.cmd.ProcessState.ExitCode()
		close(d.done)
	}()
	t.Cleanup(func() {
		select {
		case <-d.done:
		default:
			_ = d.cmd.Process.Kill()
			<-d.done
		}
	})
	deadline := time.Now().Add(time.Minute)
	for {
		if info, ok := daemon.Ping(store); ok && info.PID == d.pid && (info.Ready || !ready) {
			return d
		}
		select {
		case <-d.done:
			t.Fatalf("the daemon exited %d before serving:\n%s", d.code, d.stderr)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("the daemon does not serve; its output:\n%s", d.stderr)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// waitExit fails the test unless the daemon has exited within stopBound
// of from; it returns how long that took.
func (d *fgDaemon) waitExit(t *testing.T, from time.Time, what string) time.Duration {
	t.Helper()
	select {
	case <-d.done:
	case <-time.After(time.Until(from.Add(stopBound))):
		t.Fatalf("the daemon (pid %d) still runs %v after %s; its output:\n%s", d.pid, stopBound, what, d.stderr)
	}
	took := time.Since(from)
	t.Logf("gone %v after %s (exit %d)", took.Round(time.Millisecond), what, d.code)
	return took
}

// procGone reports whether pid no longer runs: no such process, or a
// zombie its parent (init, for a detached daemon) has not reaped yet,
// which holds no memory, socket or lock.
func procGone(pid int) bool {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] == 'Z' || s[i+2] == 'X'
}

// waitGone polls until every pid is gone, failing the test when one
// still runs stopBound after from.
func waitGone(t *testing.T, from time.Time, what string, pids ...int) {
	t.Helper()
	for {
		var alive []int
		for _, p := range pids {
			if !procGone(p) {
				alive = append(alive, p)
			}
		}
		if len(alive) == 0 {
			t.Logf("%d daemons gone %v after %s", len(pids), time.Since(from).Round(time.Millisecond), what)
			return
		}
		if time.Since(from) > stopBound {
			t.Fatalf("%d daemons (pids %v) still run %v after %s", len(alive), alive, stopBound, what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// detachDaemon starts a daemon with watch --detach and returns its pid;
// the test kills it at the end if it still runs.
func detachDaemon(t *testing.T, wt, store string, args ...string) int {
	t.Helper()
	e := newBinEnv(t)
	so, se, code := e.execOut("", append([]string{"-C", wt, "--store", store, "--json", "watch", "--detach"}, args...)...)
	var info daemon.Info
	if code != 0 || json.Unmarshal([]byte(so), &info) != nil || info.PID == 0 {
		t.Fatalf("watch --detach: exit %d\n%s%s", code, so, se)
	}
	t.Cleanup(func() {
		if !procGone(info.PID) {
			_ = syscall.Kill(info.PID, syscall.SIGKILL)
		}
	})
	return info.PID
}

// TestDaemonStopsWhenStoreGoes: a daemon whose store is removed, moved
// or replaced (alone or with its folder) is gone within stopBound,
// exits 1 saying why, and never writes into a directory that took the
// store's place.
func TestDaemonStopsWhenStoreGoes(t *testing.T) {
	testtier.Slow(t)
	for _, tc := range []struct {
		name string
		act  func(t *testing.T, base, wt, store string)
		why  string
	}{
		{"store removed", func(t *testing.T, base, wt, store string) {
			mustDo(t, os.RemoveAll(store))
		}, "its store " + "STORE" + " was removed or moved"},
		{"folder and store removed", func(t *testing.T, base, wt, store string) {
			mustDo(t, os.RemoveAll(base))
		}, "was removed or moved"},
		{"store moved", func(t *testing.T, base, wt, store string) {
			mustDo(t, os.Rename(store, store+".moved"))
		}, "its store STORE was removed or moved"},
		{"store replaced by another directory", func(t *testing.T, base, wt, store string) {
			other := store + ".other"
			mustDo(t, os.MkdirAll(filepath.Join(other, "db"), 0o700))
			mustDo(t, os.Rename(store, store+".old"))
			mustDo(t, os.Rename(other, store))
		}, "its store STORE was replaced by another directory"},
		{"database removed", func(t *testing.T, base, wt, store string) {
			mustDo(t, os.RemoveAll(filepath.Join(store, "db")))
		}, "its store STORE/db was removed or moved"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base := t.TempDir()
			wt, store := filepath.Join(base, "w"), filepath.Join(base, "s")
			treetest.PutAll(t, wt, map[string]string{"a": "1\n", "d/b": "2\n"})
			d := startFG(t, wt, store, true)
			// Something in the memtable, which Badger's Close would
			// try to flush.
			if so, se, code := newBinEnv(t).execOut("", "-C", wt, "--store", store, "snap"); code != 0 {
				t.Fatalf("snap: exit %d\n%s%s", code, so, se)
			}
			from := time.Now()
			tc.act(t, base, wt, store)
			d.waitExit(t, from, tc.name)
			out := d.stderr.String()
			why := strings.ReplaceAll(tc.why, "STORE", store)
			if d.code != exitError || !strings.Contains(out, why) || !strings.Contains(out, "exiting without closing it") {
				t.Errorf("exit %d; want 1 with %q and the reason it did not close the store:\n%s", d.code, why, out)
			}
			if tc.name == "store replaced by another directory" {
				// Nothing flushed into the newcomer.
				if ents, _ := os.ReadDir(filepath.Join(store, "db")); len(ents) != 0 {
					t.Errorf("the daemon wrote into the directory that replaced its store: %v", ents)
				}
			}
		})
	}
}

func mustDo(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestDaemonStopsWhenFolderReplaced: a folder replaced by another
// directory of the same name leaves nothing to watch.
func TestDaemonStopsWhenFolderReplaced(t *testing.T) {
	base := t.TempDir()
	wt, store := filepath.Join(base, "w"), filepath.Join(base, "s")
	treetest.PutAll(t, wt, map[string]string{"a": "1\n"})
	d := startFG(t, wt, store, true)
	from := time.Now()
	mustDo(t, os.Rename(wt, wt+".old"))
	treetest.PutAll(t, wt, map[string]string{"a": "other\n"})
	select {
	case <-d.done:
	case <-time.After(time.Until(from.Add(stopBound))):
		t.Fatalf("the daemon still runs after its folder was replaced:\n%s", d.stderr)
	}
	t.Logf("gone %v after the folder was replaced", time.Since(from).Round(time.Millisecond))
	if out := d.stderr.String(); d.code != 0 || !strings.Contains(out, "stopping (its work tree "+wt+" was replaced by another directory)") {
		t.Errorf("exit %d; want 0 with the reason:\n%s", d.code, out)
	}
}

// TestDaemonSIGTERM: SIGTERM stops a daemon within stopBound whatever it
// is doing: idle (exit 0, socket and store released), making its first
// capture of a 10,000-file tree (cancelled), or after its store was
// removed (exit 1, saying why).
func TestDaemonSIGTERM(t *testing.T) {
	testtier.Slow(t)
	e := newBinEnv(t)
	t.Run("idle", func(t *testing.T) {
		base := t.TempDir()
		wt, store := filepath.Join(base, "w"), filepath.Join(base, "s")
		treetest.PutAll(t, wt, map[string]string{"a": "1\n"})
		d := startFG(t, wt, store, true)
		from := time.Now()
		mustDo(t, syscall.Kill(d.pid, syscall.SIGTERM))
		d.waitExit(t, from, "SIGTERM")
		if out := d.stderr.String(); d.code != 0 || !strings.Contains(out, "stopping (signal)") {
			t.Errorf("exit %d; want 0 after stopping (signal):\n%s", d.code, out)
		}
		if _, err := os.Lstat(daemon.SocketPath(store)); !os.IsNotExist(err) {
			t.Errorf("socket left behind: %v", err)
		}
		// The store is free: this runs here at once (TURNBACK_LOCK_WAIT=0).
		cmd := e.with("TURNBACK_LOCK_WAIT=0").execCommand("-C", wt, "--store", store, "--json", "status")
		if out, err := cmd.CombinedOutput(); err != nil || strings.Contains(string(out), `"watch"`) {
			t.Errorf("status after the daemon stopped: %v\n%s", err, out)
		}
	})
	t.Run("capturing 10k files", func(t *testing.T) {
		base := t.TempDir()
		wt, store := filepath.Join(base, "w"), filepath.Join(base, "s")
		data := bytes.Repeat([]byte("turnback "), 300)
		for i := range 10000 {
			dir := filepath.Join(wt, fmt.Sprintf("d%03d", i/100))
			if i%100 == 0 {
				mustDo(t, os.MkdirAll(dir, 0o755))
			}
			mustDo(t, os.WriteFile(filepath.Join(dir, strconv.Itoa(i)), append(data, byte(i)), 0o644))
		}
		d := startFG(t, wt, store, false)
		info, ok := daemon.Ping(store)
		if !ok || info.Ready {
			t.Fatalf("the first capture of 10,000 files is already over (%+v): nothing to interrupt", info)
		}
		from := time.Now()
		mustDo(t, syscall.Kill(d.pid, syscall.SIGTERM))
		d.waitExit(t, from, "SIGTERM during the first capture")
		out := d.stderr.String()
		if d.code != 0 || !strings.Contains(out, "stopping (signal)") || strings.Contains(out, "watching every directory") {
			t.Errorf("exit %d; want 0, stopped by the signal before the first capture ended:\n%s", d.code, out)
		}

		// And while it captures 3,000 of the files, changed, for a
		// client's snap: the command is cancelled and says why.
		d = startFG(t, wt, store, true)
		for i := range 3000 {
			p := filepath.Join(wt, fmt.Sprintf("d%03d", i/100), strconv.Itoa(i))
			mustDo(t, os.WriteFile(p, append(data, byte(i), 'x'), 0o644))
		}
		snap := e.execCommand("-C", wt, "--store", store, "snap")
		var so, se syncBuffer
		snap.Stdout, snap.Stderr = &so, &se
		mustDo(t, snap.Start())
		t.Cleanup(func() { _ = snap.Process.Kill() })
		deadline := time.Now().Add(30 * time.Second)
		for {
			if info, ok := daemon.Ping(store); ok && info.Requests == 1 && info.IdleSeconds == 0 {
				break // running the snap
			}
			if time.Now().After(deadline) {
				t.Fatalf("the daemon never ran the snap:\n%s%s", se.String(), d.stderr)
			}
			time.Sleep(5 * time.Millisecond)
		}
		from = time.Now()
		mustDo(t, syscall.Kill(d.pid, syscall.SIGTERM))
		d.waitExit(t, from, "SIGTERM during a client's snap of 3,000 changed files")
		_ = snap.Wait()
		if code := snap.ProcessState.ExitCode(); code != exitError || so.String() != "" ||
			!strings.HasSuffix(se.String(), "context canceled\nturnback: the watch daemon is stopping (signal): it cancelled this command\n") {
			t.Errorf("the cancelled snap: exit %d, stdout %q, stderr %q", code, so.String(), se.String())
		}
	})
	t.Run("detached, its log removed", func(t *testing.T) {
		base := t.TempDir()
		wt, store := filepath.Join(base, "w"), filepath.Join(base, "s")
		treetest.PutAll(t, wt, map[string]string{"a": "1\n"})
		pid := detachDaemon(t, wt, store)
		mustDo(t, os.Remove(filepath.Join(store, "watch.log")))
		from := time.Now()
		mustDo(t, syscall.Kill(pid, syscall.SIGTERM))
		waitGone(t, from, "SIGTERM with its log removed", pid)
		if _, err := os.Lstat(daemon.SocketPath(store)); !os.IsNotExist(err) {
			t.Errorf("socket left behind: %v", err)
		}
	})
	t.Run("store removed", func(t *testing.T) {
		base := t.TempDir()
		wt, store := filepath.Join(base, "w"), filepath.Join(base, "s")
		treetest.PutAll(t, wt, map[string]string{"a": "1\n"})
		d := startFG(t, wt, store, true)
		// Frozen, so that SIGTERM, not its own look at the store, is
		// what it finds when it runs again.
		freezeProc(t, d.pid)
		mustDo(t, os.RemoveAll(store))
		from := time.Now()
		mustDo(t, syscall.Kill(d.pid, syscall.SIGTERM))
		mustDo(t, syscall.Kill(d.pid, syscall.SIGCONT))
		d.waitExit(t, from, "SIGTERM with the store removed")
		if out := d.stderr.String(); d.code != exitError || !strings.Contains(out, "was removed or moved: exiting without closing it") {
			t.Errorf("exit %d; want 1 saying the store is gone:\n%s", d.code, out)
		}
	})
}

// TestDaemonIdleDespiteChanges: the idle timeout counts commands, not
// changes: a folder written every 100 ms still lets its daemon go.
func TestDaemonIdleDespiteChanges(t *testing.T) {
	testtier.Slow(t)
	base := t.TempDir()
	wt, store := filepath.Join(base, "w"), filepath.Join(base, "s")
	treetest.PutAll(t, wt, map[string]string{"a": "1\n"})
	const idle = 2 * time.Second
	d := startFG(t, wt, store, true, "--idle-timeout", idle.String())
	stop := make(chan struct{})
	changed := make(chan int)
	go func() {
		n := 0
		defer func() { changed <- n }()
		t := time.NewTicker(100 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
			}
			n++
			_ = os.WriteFile(filepath.Join(wt, fmt.Sprintf("f%d", n%7)), []byte(strconv.Itoa(n)), 0o644)
			if n%5 == 0 {
				_ = os.MkdirAll(filepath.Join(wt, "sub", strconv.Itoa(n)), 0o755)
			}
		}
	}()
	// The last command: the idle time counts from its end.
	if so, se, code := newBinEnv(t).execOut("", "-C", wt, "--store", store, "status"); code != 0 {
		t.Fatalf("status: exit %d\n%s%s", code, so, se)
	}
	last := time.Now()
	if took := d.waitExit(t, last.Add(idle), "the idle timeout"); took < -300*time.Millisecond {
		t.Errorf("the daemon stopped %v before its idle timeout", -took)
	}
	close(stop)
	if n := <-changed; n < 15 {
		t.Errorf("only %d changes while the daemon idled", n)
	}
	if out := d.stderr.String(); d.code != 0 || !strings.Contains(out, "stopping (idle for 2s)") {
		t.Errorf("exit %d; want 0 stopped for idling:\n%s", d.code, out)
	}
}

// TestDaemonsOfRemovedFolders: 20 folders with their stores beside them,
// each with a detached daemon, removed at once: no daemon survives.
func TestDaemonsOfRemovedFolders(t *testing.T) {
	testtier.Slow(t)
	base := t.TempDir()
	var pids []int
	for i := range 20 {
		dir := filepath.Join(base, fmt.Sprintf("job%02d", i))
		wt := filepath.Join(dir, "w")
		treetest.PutAll(t, wt, map[string]string{"a": strconv.Itoa(i), "src/b": "b\n"})
		pids = append(pids, detachDaemon(t, wt, filepath.Join(dir, "s")))
	}
	from := time.Now()
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_ = os.RemoveAll(filepath.Join(base, fmt.Sprintf("job%02d", i)))
		}()
	}
	wg.Wait()
	waitGone(t, from, "their folders and stores were removed", pids...)
	// And no turnback process of these folders is left.
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || procGone(pid) {
			continue
		}
		if cmdline, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline")); bytes.Contains(cmdline, []byte(base)) {
			t.Errorf("pid %d still runs: %q", pid, bytes.ReplaceAll(cmdline, []byte{0}, []byte{' '}))
		}
	}
}
