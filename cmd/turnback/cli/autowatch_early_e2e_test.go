//go:build linux

package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/turnback/turnback/internal/testtier"
	"github.com/turnback/turnback/manifest/treetest"
	"github.com/turnback/turnback/watch/daemon"
)

// TestAutoWatchEarly: a capture that sees TURNBACK_AUTO_WATCH files
// while it still runs starts the daemon then, not at its end: the
// daemon watches every directory while the capture holds the store,
// waits for it, and serves the folder once the command ends. The
// command's output is what it always is, and the daemon's first answer
// is exact: the daemon made no capture of its own, the snap handed its
// capture over (turnback.Handoff). (A sparse file over the size limit makes the capture long
// enough: it is read and hashed, not stored.)
func TestAutoWatchEarly(t *testing.T) {
	testtier.Slow(t)
	e := newBinEnv(t)
	base := e.base
	wt, store := filepath.Join(base, "wt"), filepath.Join(base, "store")
	files := map[string]string{}
	for i := range 40 {
		files[fmt.Sprintf("d%d/e%d/f%d.txt", i%4, i%3, i)] = fmt.Sprintf("file %d\n", i)
	}
	treetest.PutAll(t, wt, files)
	big, err := os.Create(filepath.Join(wt, "big.bin"))
	if err != nil {
		t.Fatal(err)
	}
	if err := big.Truncate(1 << 30); err != nil {
		t.Fatal(err)
	}
	big.Close()
	t.Cleanup(func() { e.execOut("", "-C", wt, "--store", store, "watch", "--stop") })
	e.setenv("TURNBACK_AUTO_WATCH", "5")
	e.setenv("TURNBACK_SIZE_LIMIT", "1M")
	so, se, code := e.execOut("", "-C", wt, "--store", store, "snap", "-m", "first")
	if code != 0 || len(strings.TrimSpace(so)) != 12 || !strings.Contains(se, "turn 1 of session default started: 41 files") {
		t.Fatalf("snap: exit %d, %q / %q", code, so, se)
	}
	var info *daemon.Info
	waitFor(t, "a daemon serves the folder", func() bool {
		var ok bool
		info, ok = daemon.Ping(store)
		return ok && info.Ready
	})
	log, _ := os.ReadFile(filepath.Join(store, "watch.log"))
	t.Logf("%s", log)
	early := regexp.MustCompile(`watching every directory \(built in [^)]*\) while the command that started this daemon \(pid (\d+)\) captures; waiting for the store\n`)
	m := early.FindSubmatch(log)
	if m == nil || !strings.Contains(string(log), "turnback snap in "+wt+" (pid "+string(m[1])+",") {
		t.Fatalf("the daemon did not build its watches while the snap captured:\n%s", log)
	}
	if !strings.Contains(string(log), "the command that started the daemon handed its capture over") {
		t.Fatalf("the daemon did not take the snap's capture over:\n%s", log)
	}
	if strings.Count(string(log), "serving "+wt) != 1 {
		t.Fatalf("want one daemon:\n%s", log)
	}
	treetest.PutAll(t, wt, map[string]string{"d0/new.txt": "new\n", "d1/e1/f1.txt": "changed\n"})
	so, _, code = e.execOut("", "-C", wt, "--store", store, "--json", "status")
	got, _, incremental := statusDoc(so)
	if code != 0 || !incremental {
		t.Fatalf("status did not go through the ready daemon incrementally: exit %d, %s", code, so)
	}
	if want := `[{"change":"added","path":"d0/new.txt"},{"change":"modified","path":"d1/e1/f1.txt"}]`; got != want {
		t.Errorf("status through the daemon: %s, want %s", got, want)
	}
	if again, ok := daemon.Ping(store); !ok || again.PID != info.PID {
		t.Errorf("after a forwarded command: daemon %+v, want pid %d", again, info.PID)
	}
}
