//go:build unix

package turnback_test

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/turnback/turnback/watch/daemon"
)

// TestModelDaemon runs one seed of the model test (model_test.go) with
// a daemon serving the folder in another process: every Open of the
// harness returns a Repo whose Snap, End, Undo, Redo, Restore, Status
// and Turns run in the daemon over the HTTP API, and every result and
// the folder must be what the model says, as without a daemon.
// TURNBACK_MODEL_SEED picks the seed.
func TestModelDaemon(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	seed := int64(20261126)
	if s := os.Getenv("TURNBACK_MODEL_SEED"); s != "" {
		if _, err := fmt.Sscan(s, &seed); err != nil {
			t.Fatal(err)
		}
	}
	base := t.TempDir()
	h := newHarness(t, seed, testing.Verbose(), base)
	h.sc.off = true // the daemon watches: its captures are never scoped
	if err := os.MkdirAll(h.dir, 0o755); err != nil {
		t.Fatal(err)
	}
	startDaemon(t, h.dir, h.store, "")
	defer func() {
		if r := recover(); r != nil {
			msg := fmt.Sprint(r)
			if f, ok := r.(modelFailure); ok {
				msg = f.msg
			}
			t.Fatalf("model sequence seed %d through the daemon failed at step %d: %s\nhistory:\n%s\nmodel of the folder now:\n%s",
				seed, h.step, msg, strings.Join(h.hist, "\n"), h.fs)
		}
	}()
	h.open()
	if !h.repo.Served() {
		t.Fatal("Open did not go through the daemon")
	}
	h.initialTree()
	h.check()
	steps := 120
	for h.step = 1; h.step <= steps; h.step++ {
		h.randomStep()
		h.check()
		if !h.repo.Served() {
			t.Fatalf("step %d: the Repo is no longer served", h.step)
		}
	}
	h.step++
	h.apiUndo(100, true)
	h.check()
	h.step++
	h.apiRedo(100, true)
	h.check()
	h.close()
	info, ok := daemon.PingWithin(h.store, 10*time.Second)
	if !ok || info.Requests < int64(steps/4) {
		t.Fatalf("the daemon ran too few requests: %+v", info)
	}
	t.Logf("%d steps, %d requests through the daemon", h.step, info.Requests)
}
