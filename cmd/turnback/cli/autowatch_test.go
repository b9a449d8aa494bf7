//go:build unix

package cli

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	daemons "github.com/turnback/turnback/internal/daemon"
	"github.com/turnback/turnback/internal/testtier"
	"github.com/turnback/turnback/manifest/treetest"
	"github.com/turnback/turnback/watch/daemon"
)

// statusDoc reads the output of "status --json": its changes as
// compact JSON, whether a watch daemon ran the capture and whether that
// capture was incremental (all zero when the output is not JSON).
func statusDoc(out string) (changes string, watched, incremental bool) {
	var doc struct {
		Changes []map[string]string `json:"changes"`
		Stats   struct {
			Watch *struct {
				Incremental bool `json:"incremental"`
			} `json:"watch"`
		} `json:"stats"`
	}
	if json.Unmarshal([]byte(out), &doc) != nil {
		return "", false, false
	}
	got, _ := json.Marshal(doc.Changes)
	return string(got), doc.Stats.Watch != nil, doc.Stats.Watch != nil && doc.Stats.Watch.Incremental
}

// waitFor polls cond until it holds or 30 s pass.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting until %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestAutoWatch: a capture of a folder with TURNBACK_AUTO_WATCH files or
// more starts a watch daemon in the background, which serves the next
// commands with the same output; smaller folders, TURNBACK_AUTO_WATCH=0,
// a recent failure (watch.failed) and a bad value start none; the
// daemon stops when its folder is removed.
func TestAutoWatch(t *testing.T) {
	testtier.Slow(t)
	if !isLinux() {
		t.Skip("automatic daemons are started on Linux only")
	}
	e := newBinEnv(t)
	base := e.base
	files := map[string]string{}
	for i := range 5 {
		files[fmt.Sprintf("d%d/f%d.txt", i%2, i)] = fmt.Sprintf("file %d\n", i)
	}
	e.setenv("TURNBACK_LOCK_WAIT", "10s")
	type folder struct{ wt, store string }
	newFolder := func(name string) folder {
		f := folder{filepath.Join(base, name), filepath.Join(base, name+".store")}
		treetest.PutAll(t, f.wt, files)
		t.Cleanup(func() { e.execOut("", "-C", f.wt, "--store", f.store, "watch", "--stop") })
		return f
	}
	tb := func(f folder, env string, args ...string) (string, string, int) {
		t.Helper()
		e.setenv("TURNBACK_AUTO_WATCH", env)
		return e.execOut("", append([]string{"-C", f.wt, "--store", f.store}, args...)...)
	}
	must := func(f folder, env string, args ...string) (string, string) {
		t.Helper()
		so, se, code := tb(f, env, args...)
		if code != 0 {
			t.Fatalf("turnback %s: exit %d\n%s%s", strings.Join(args, " "), code, so, se)
		}
		return so, se
	}
	// noDaemon checks, a moment after a command, that none was started.
	noDaemon := func(f folder, why string) {
		t.Helper()
		time.Sleep(300 * time.Millisecond)
		if info, ok := daemon.Ping(f.store); ok {
			t.Errorf("%s: a daemon (pid %d) was started", why, info.PID)
		}
	}

	// Below the threshold, or switched off: nothing starts.
	small := newFolder("small")
	must(small, "6", "snap", "-m", "one")
	noDaemon(small, "5 files with TURNBACK_AUTO_WATCH=6")
	must(small, "0", "status")
	noDaemon(small, "TURNBACK_AUTO_WATCH=0")
	must(small, "off", "end")
	noDaemon(small, "TURNBACK_AUTO_WATCH=off")
	if _, se, code := tb(small, "many", "status"); code != exitUsage || !strings.Contains(se, "TURNBACK_AUTO_WATCH: bad value \"many\"") {
		t.Errorf("TURNBACK_AUTO_WATCH=many: exit %d, %q; want 2 naming the variable", code, se)
	}
	noDaemon(small, "a bad TURNBACK_AUTO_WATCH")

	// At the threshold: the snap's output is what it always is, and a
	// daemon serves the folder afterwards.
	f := newFolder("big")
	so, se := must(f, "5", "snap", "-m", "first")
	if !strings.Contains(se, "turn 1 of session default started: 5 files") || len(strings.TrimSpace(so)) != 12 {
		t.Errorf("snap printed %q / %q", so, se)
	}
	var info *daemon.Info
	waitFor(t, "a daemon serves the folder", func() bool {
		var ok bool
		info, ok = daemon.Ping(f.store)
		return ok && info.Ready
	})
	if log, _ := os.ReadFile(filepath.Join(f.store, "watch.log")); !strings.Contains(string(log), "serving "+f.wt) {
		t.Errorf("watch.log of the automatic daemon:\n%s", log)
	}
	treetest.PutAll(t, f.wt, map[string]string{"d0/new.txt": "new\n", "d1/f1.txt": "changed\n"})
	so, _ = must(f, "5", "--json", "status")
	got, watched, _ := statusDoc(so)
	if !watched {
		t.Fatalf("status after the automatic start did not go through the daemon: %s", so)
	}
	if want := `[{"change":"added","path":"d0/new.txt"},{"change":"modified","path":"d1/f1.txt"}]`; got != want {
		t.Errorf("status through the daemon: %s, want %s", got, want)
	}
	if so, _ := must(f, "5", "info"); !strings.Contains(so, fmt.Sprintf("\nwatched:    by pid %d ", info.PID)) {
		t.Errorf("info does not name the automatic daemon:\n%s", so)
	}
	// A command through the daemon starts no other.
	must(f, "5", "end")
	if again, ok := daemon.Ping(f.store); !ok || again.PID != info.PID {
		t.Errorf("after a forwarded command: daemon %+v, want pid %d", again, info.PID)
	}

	// Removing the folder stops its daemon (the store goes free).
	if err := os.RemoveAll(f.wt); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the daemon of a removed folder stops", func() bool { _, ok := daemon.Ping(f.store); return !ok })
	if log, _ := os.ReadFile(filepath.Join(f.store, "watch.log")); !strings.Contains(string(log), "its work tree "+f.wt+" was removed") {
		t.Errorf("watch.log does not say why the daemon stopped:\n%s", log)
	}

	// A recent failure to watch keeps commands from trying again; an
	// old one does not.
	g := newFolder("failed")
	must(g, "0", "snap")
	marker := filepath.Join(g.store, daemons.FailedName)
	if err := os.WriteFile(marker, []byte("2026-01-01T00:00:00Z automatic watch daemon failed: test\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	must(g, "5", "status")
	noDaemon(g, "a recent watch.failed")
	if so, _ := must(g, "5", "info"); !strings.Contains(so, "none starts by itself for a day after: 2026-01-01T00:00:00Z automatic watch daemon failed: test") {
		t.Errorf("info does not say why no daemon starts:\n%s", so)
	}
	old := time.Now().Add(-2 * daemons.Retry)
	if err := os.Chtimes(marker, old, old); err != nil {
		t.Fatal(err)
	}
	must(g, "5", "status")
	waitFor(t, "a daemon starts once the failure is old", func() bool { i, ok := daemon.Ping(g.store); return ok && i.Ready })
	// A daemon that watches removes the marker.
	if _, err := os.Stat(marker); !os.IsNotExist(err) {
		t.Errorf("watch.failed is still there once a daemon watches: %v", err)
	}
}

// TestAutoWatchHookTimeout: an agent hook whose capture runs out of its
// time budget skips the turn, and starts a watch daemon whatever the
// file count: the folder is too big to capture within the budget, and
// once the daemon's first capture is done the hooks cost what changed.
func TestAutoWatchHookTimeout(t *testing.T) {
	testtier.Slow(t)
	if !isLinux() {
		t.Skip("automatic daemons are started on Linux only")
	}
	e := newBinEnv(t)
	base := e.base
	wt := filepath.Join(base, "wt")
	// 3,000 files of 8 KiB: a cold capture takes some 100 ms, opening
	// the store a fraction of that.
	rng := rand.New(rand.NewPCG(1, 2))
	files := map[string]string{}
	for i := range 3000 {
		b := make([]byte, 4<<10)
		for j := range b {
			b[j] = byte(rng.Uint32())
		}
		files[fmt.Sprintf("d%02d/f%04d.txt", i%30, i)] = hex.EncodeToString(b)
	}
	treetest.PutAll(t, wt, files)
	// Only the timeout can start a daemon here.
	e.setenv("TURNBACK_AUTO_WATCH", "1000000")
	e.setenv("HOME", filepath.Join(base, "home"))
	e.setenv("CLAUDE_PROJECT_DIR", "")
	payload := string(hookPayload(t, "claude_user_prompt_submit.json", wt))
	// The budget must let the store open and stop the capture: try a few.
	for i, budget := range []string{"25ms", "50ms", "80ms", "120ms", "200ms"} {
		store := filepath.Join(base, fmt.Sprintf("store%d", i))
		e.setenv("TURNBACK_STORE", store)
		e.setenv("TURNBACK_HOOK_TIMEOUT", budget)
		t.Cleanup(func() { e.execOut("", "-C", wt, "--store", store, "watch", "--stop") })
		so, se, code := e.execOut(payload, "hook", "claude")
		if code != 0 || so != "" {
			t.Fatalf("hook: exit %d, stdout %q, stderr %q", code, so, se)
		}
		if !strings.Contains(se, "took longer than "+budget) {
			t.Logf("budget %s: the capture did not run out of it (%q)", budget, strings.TrimSpace(se))
			time.Sleep(300 * time.Millisecond)
			if info, ok := daemon.Ping(store); ok {
				t.Fatalf("budget %s: a daemon (pid %d) started although the hook did not time out in its capture", budget, info.PID)
			}
			continue
		}
		waitFor(t, "the daemon started by the timed-out hook is ready", func() bool { i, ok := daemon.Ping(store); return ok && i.Ready })
		// The next hook goes through it and records the turn.
		e.setenv("TURNBACK_HOOK_TIMEOUT", "30s")
		if so, se, code := e.execOut(payload, "hook", "claude"); code != 0 || so != "" || se != "" {
			t.Fatalf("hook through the daemon: exit %d, stdout %q, stderr %q", code, so, se)
		}
		out, se, code := e.execOut("", "-C", wt, "--store", store, "--session", payloadSession(t, []byte(payload)), "--json", "log")
		if code != 0 || !strings.Contains(out, `"turn": 1`) {
			t.Fatalf("log after the hook through the daemon: exit %d\n%s%s", code, out, se)
		}
		return
	}
	t.Skip("no budget made the hook time out inside its capture on this machine")
}
