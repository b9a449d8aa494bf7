package cli

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/turnback/turnback/watch/daemon"
)

// crashDaemon is the crash matrix run through a watch daemon: the
// daemon runs the command's restore (it is started with
// TURNBACK_TEST_CRASH_AT; the client traces the steps the daemon
// reports), the daemon is the process SIGKILLed at the step, the client
// reports it, and the next command (run without a daemon,
// which finds the daemon's socket stale) must recover exactly as it does
// after a crash of a plain CLI process.
func crashDaemon(t *testing.T, pool *crashPool) {
	w0 := pool.first()
	cases := []struct {
		name    string
		steps   []string
		points  []int
		from    func(w *crashWorld) string
		args    func(w *crashWorld) []string
		pre     string
		post    string
		restore bool
	}{
		{"undo", w0.undoSteps, crashPoints(pool.rng, w0.undoSteps, 1, 1, 1, 2, 2),
			func(w *crashWorld) string { return w.pristineNew },
			func(*crashWorld) []string { return []string{"undo"} }, "new", "old", false},
		{"redo", w0.redoSteps, crashShortPoints(w0.redoSteps),
			func(w *crashWorld) string { return w.pristineUndone },
			func(*crashWorld) []string { return []string{"redo"} }, "old", "new", false},
		{"restoreID", w0.restoreSteps, crashShortPoints(w0.restoreSteps),
			func(w *crashWorld) string { return w.pristineNew },
			func(w *crashWorld) []string { return []string{"restore", w.oldID[:12]} }, "new", "old", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Logf("%d crash points out of %d steps", len(tc.points), len(tc.steps))
			for i, k := range tc.points {
				t.Run(fmt.Sprintf("step%04d", k), func(t *testing.T) {
					t.Parallel()
					w := pool.get()
					defer pool.put(w)
					crashOne(t, w, crashCase{
						from: tc.from(w), args: tc.args(w), steps: tc.steps, k: k,
						recoverWith: "status", pre: tc.pre, post: tc.post,
						followUp: crashFollowUp(tc.steps, i, k), restore: tc.restore, daemon: true,
					})
				})
			}
		})
	}
}

// startDaemon starts a watch daemon on the world, with the variables
// env, and stops it when the test ends (unless it is dead by then).
func (w *crashWorld) startDaemon(t *testing.T, env ...string) {
	t.Helper()
	r := w.run(t, env, "watch", "--detach", "--idle-timeout", "10m")
	if r.code != 0 || !strings.HasPrefix(r.stdout, "watching ") {
		t.Fatalf("watch --detach: exit %d, printed %q\n%s", r.code, r.stdout, r.stderr)
	}
	t.Cleanup(func() { w.run(t, nil, "watch", "--stop") })
}

// daemonGone checks that no daemon answers on the world's store.
func (w *crashWorld) daemonGone(t *testing.T) {
	t.Helper()
	stores, err := filepath.Glob(filepath.Join(w.xdg, "turnback", "*"))
	if err != nil || len(stores) != 1 {
		t.Fatalf("stores of the world: %v (%v)", stores, err)
	}
	if info, ok := daemon.Ping(stores[0]); ok {
		t.Fatalf("a daemon (pid %d) still answers after the crash", info.PID)
	}
}
