//go:build linux

package cli

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/turnback/turnback/cmd/turnback/termout"
	"github.com/turnback/turnback/internal/testtier"
	"github.com/turnback/turnback/manifest/treetest"
	"github.com/turnback/turnback/watch/daemon"
)

// TestWatchListStopAll: three daemons, the third frozen with its store
// removed (as a daemon of an older turnback that never noticed): --list
// shows all three with their fields, --stop-all stops the two that
// answer over their sockets and the third by SIGTERM, and nothing is
// left.
func TestWatchListStopAll(t *testing.T) {
	e := newBinEnv(t)
	base := e.base
	start := time.Now().Add(-time.Second)
	type dm struct {
		wt, store string
		pid       int
	}
	var ds []dm
	for _, name := range []string{"a", "b", "c"} {
		d := dm{wt: filepath.Join(base, name), store: filepath.Join(base, name+".store")}
		treetest.PutAll(t, d.wt, map[string]string{"f": name})
		d.pid = detachDaemon(t, d.wt, d.store, "--idle-timeout", "10m")
		ds = append(ds, d)
	}
	// info names the daemon serving the folder, with its memory.
	so, _, _ := e.execOut("", "-C", ds[0].wt, "--store", ds[0].store, "info")
	infoLine := regexp.MustCompile(fmt.Sprintf(`\nwatched:    by pid %d since \d{4}-\d\d-\d\d \d\d:\d\d:\d\d \(1 commands served, \d+\.\d MiB of memory; socket %s\)\n`,
		ds[0].pid, regexp.QuoteMeta(daemon.SocketPath(ds[0].store))))
	if !infoLine.MatchString(so) {
		t.Errorf("info of a watched folder:\n%s", so)
	}
	c := ds[2]
	freezeProc(t, c.pid)
	t.Cleanup(func() { _ = syscall.Kill(c.pid, syscall.SIGKILL) })
	mustDo(t, os.RemoveAll(c.store))

	so, se, code := e.execOut("", "--json", "watch", "--list", "--under", base)
	if code != 0 {
		t.Fatalf("watch --list: exit %d\n%s%s", code, so, se)
	}
	var doc struct {
		Daemons []struct {
			PID         int       `json:"pid"`
			WorkTree    string    `json:"work_tree"`
			Store       string    `json:"store"`
			Socket      string    `json:"socket"`
			Since       time.Time `json:"since"`
			IdleSeconds *float64  `json:"idle_seconds"`
			IdleTimeout string    `json:"idle_timeout"`
			Requests    *int64    `json:"requests"`
			RSSBytes    int64     `json:"rss_bytes"`
			Answering   bool      `json:"answering"`
			Problems    []string  `json:"problems"`
		} `json:"daemons"`
	}
	if err := json.Unmarshal([]byte(so), &doc); err != nil || len(doc.Daemons) != 3 {
		t.Fatalf("watch --list --json: %v\n%s", err, so)
	}
	for i, got := range doc.Daemons {
		want := ds[i]
		if got.PID != want.pid || got.WorkTree != want.wt || got.Store != want.store {
			t.Errorf("daemon %d: pid %d, folder %s, store %s; want %d, %s, %s", i, got.PID, got.WorkTree, got.Store, want.pid, want.wt, want.store)
		}
		if got.Since.Before(start) || got.Since.After(time.Now()) || got.RSSBytes < 1<<20 {
			t.Errorf("daemon %d: since %v, rss %d", i, got.Since, got.RSSBytes)
		}
		if i < 2 {
			if !got.Answering || got.IdleSeconds == nil || *got.IdleSeconds < 0 || got.IdleTimeout != "10m0s" ||
				got.Requests == nil || got.Socket != daemon.SocketPath(want.store) || len(got.Problems) != 0 {
				t.Errorf("daemon %d (serving): %s", i, so)
			}
		} else if got.Answering || got.IdleSeconds != nil || got.Requests != nil ||
			strings.Join(got.Problems, ",") != "not answering,store gone" {
			t.Errorf("the frozen daemon without its store: %s", so)
		}
	}

	// The table, field by field where the values are stable.
	so, _, code = e.execOut("", "watch", "--list", "--under", base)
	lines := strings.Split(strings.TrimSuffix(so, "\n"), "\n")
	if code != 0 || len(lines) != 4 || strings.Join(strings.Fields(lines[0]), " ") != "PID SINCE IDLE MEMORY FOLDER STORE NOTE" {
		t.Fatalf("watch --list: exit %d\n%s", code, so)
	}
	cols := regexp.MustCompile(`  +`)
	stamp := regexp.MustCompile(`^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$`)
	for i, l := range lines[1:] {
		f := cols.Split(l, -1)
		idle, note := "^\\d+s$", "-"
		if i == 2 {
			idle, note = "^-$", "not answering, store gone"
		}
		if len(f) != 7 || f[0] != fmt.Sprint(ds[i].pid) || !stamp.MatchString(f[1]) || !regexp.MustCompile(idle).MatchString(f[2]) ||
			!strings.HasSuffix(f[3], " MiB") || f[4] != ds[i].wt || f[5] != ds[i].store || f[6] != note {
			t.Errorf("row %d: %q", i, f)
		}
	}

	from := time.Now()
	so, se, code = e.execOut("", "watch", "--stop-all", "--under", base)
	want := fmt.Sprintf("stopped pid %d (socket) of %s\nstopped pid %d (socket) of %s\nstopped pid %d (SIGTERM) of %s\n",
		ds[0].pid, ds[0].wt, ds[1].pid, ds[1].wt, c.pid, c.wt)
	if code != 0 || so != want || se != "" {
		t.Errorf("watch --stop-all: exit %d\nstdout %q\nwant   %q\nstderr %q", code, so, want, se)
	}
	waitGone(t, from, "watch --stop-all", ds[0].pid, ds[1].pid, c.pid)
	if so, _, code := e.execOut("", "watch", "--list", "--under", base); code != 0 || so != "no watch daemons\n" {
		t.Errorf("watch --list after --stop-all: exit %d, %q", code, so)
	}
	if so, _, code := e.execOut("", "--json", "watch", "--stop-all", "--under", base); code != 0 || so != "{\n  \"stopped\": [],\n  \"survivors\": []\n}\n" {
		t.Errorf("watch --stop-all --json with none left: exit %d, %q", code, so)
	}
	if _, se, code := e.execOut("", "watch", "--under", base); code != exitUsage || !strings.Contains(se, "--under goes with --list or --stop-all") {
		t.Errorf("watch --under alone: exit %d, %q", code, se)
	}
}

// TestGCStoresStopsDaemon: gc --stores names the daemon of an orphaned
// store and, with --yes, stops it before removing the store (here a
// frozen daemon, which would otherwise keep the store locked).
func TestGCStoresStopsDaemon(t *testing.T) {
	testtier.Slow(t)
	e := newBinEnv(t)
	base := e.base
	e.setenv("XDG_DATA_HOME", filepath.Join(base, "xdg"))
	e.setenv("TURNBACK_STORE", "")
	wt := filepath.Join(base, "w")
	treetest.PutAll(t, wt, map[string]string{"f": "1"})
	so, se, code := e.execOut("", "-C", wt, "--json", "watch", "--detach")
	var info daemon.Info
	if code != 0 || json.Unmarshal([]byte(so), &info) != nil {
		t.Fatalf("watch --detach: exit %d\n%s%s", code, so, se)
	}
	t.Cleanup(func() { _ = syscall.Kill(info.PID, syscall.SIGKILL) })
	freezeProc(t, info.PID)
	mustDo(t, os.RemoveAll(wt))

	so, _, code = e.execOut("", "gc", "--stores")
	if code != 0 || !strings.Contains(so, fmt.Sprintf("%s  (folder %s is gone; watch daemon pid %d)\n", info.Store, wt, info.PID)) {
		t.Errorf("gc --stores: exit %d\n%s", code, so)
	}
	so, se, code = e.execOut("", "gc", "--stores", "--yes")
	if code != 0 || se != fmt.Sprintf("turnback: stopped the watch daemon of %s (pid %d, SIGTERM)\n", info.Store, info.PID) ||
		!strings.Contains(so, "deleted 1 stores") {
		t.Errorf("gc --stores --yes: exit %d\nstdout %q\nstderr %q", code, so, se)
	}
	if _, err := os.Stat(info.Store); !os.IsNotExist(err) {
		t.Errorf("the store is still there: %v", err)
	}
	if !procGone(info.PID) {
		t.Errorf("the daemon (pid %d) still runs", info.PID)
	}
}

// TestWatchListDeletedBinary: a daemon whose executable was deleted (an
// upgrade, a temporary build) is still listed and stopped.
func TestWatchListDeletedBinary(t *testing.T) {
	e := newBinEnv(t)
	base := e.base
	data, err := os.ReadFile(e.bin)
	mustDo(t, err)
	old := filepath.Join(base, "old", "turnback")
	mustDo(t, os.MkdirAll(filepath.Dir(old), 0o755))
	mustDo(t, os.WriteFile(old, data, 0o755))
	// A folder name that would forge a line of the table, printed quoted.
	wt, store := filepath.Join(base, "w\nforged \x1b[2J\xff"), filepath.Join(base, "s")
	treetest.PutAll(t, wt, map[string]string{"f": "1"})
	oldUser := e.with()
	oldUser.bin = old
	so, se, code := oldUser.execOut("", "-C", wt, "--store", store, "--json", "watch", "--detach")
	var info daemon.Info
	if code != 0 || json.Unmarshal([]byte(so), &info) != nil {
		t.Fatalf("watch --detach: exit %d\n%s%s", code, so, se)
	}
	t.Cleanup(func() { _ = syscall.Kill(info.PID, syscall.SIGKILL) })
	mustDo(t, os.Remove(old))
	if target, _ := os.Readlink(fmt.Sprintf("/proc/%d/exe", info.PID)); !strings.HasSuffix(target, " (deleted)") {
		t.Fatalf("the daemon's executable is %q; want it deleted", target)
	}
	so, _, code = e.execOut("", "watch", "--list", "--under", base)
	lines := strings.Split(strings.TrimSuffix(so, "\n"), "\n")
	if code != 0 || len(lines) != 2 || !strings.HasPrefix(lines[1], fmt.Sprint(info.PID)+" ") || !strings.HasSuffix(lines[1], "  "+termout.QuotePath(wt)+"  "+store+"  -") || !strings.Contains(lines[1], `/w\nforged \033[2J\377"`) {
		t.Errorf("watch --list: exit %d\n%s", code, so)
	}
	so, _, _ = e.execOut("", "--json", "watch", "--list", "--under", base)
	var doc struct {
		Daemons []struct {
			WorkTreeBytes string `json:"work_tree_bytes"`
			StoreBytes    string `json:"store_bytes"`
		} `json:"daemons"`
	}
	if err := json.Unmarshal([]byte(so), &doc); err != nil || len(doc.Daemons) != 1 ||
		doc.Daemons[0].WorkTreeBytes != base64.StdEncoding.EncodeToString([]byte(wt)) || doc.Daemons[0].StoreBytes != "" {
		t.Errorf("watch --list --json of a folder whose name is not UTF-8: %v\n%s", err, so)
	}
	from := time.Now()
	if so, _, code := e.execOut("", "watch", "--stop-all", "--under", base); code != 0 || so != fmt.Sprintf("stopped pid %d (socket) of %s\n", info.PID, termout.QuotePath(wt)) {
		t.Errorf("watch --stop-all: exit %d, %q", code, so)
	}
	waitGone(t, from, "watch --stop-all", info.PID)
}
