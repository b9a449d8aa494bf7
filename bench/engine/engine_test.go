//go:build linux

package engine

import (
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// TestMain lets the test binary serve as the spawn helper, as the bench
// binary does.
func TestMain(m *testing.M) {
	if os.Getenv(SpawnEnv) == "1" {
		os.Exit(SpawnHelper())
	}
	os.Exit(m.Run())
}

// TestRunMeasured runs commands under the spawn helper: exit codes,
// stdout, wall time and processes are counted per operation.
func TestRunMeasured(t *testing.T) {
	op, p, err := oneCommand(exec.Command("sh", "-c", "echo hello; sleep 0.05"))
	if err != nil {
		t.Fatal(err)
	}
	if p.stdout.String() != "hello\n" || op.Procs != 1 || op.Dur < 50*time.Millisecond || op.Info["rss_floor_kb"] == nil {
		t.Errorf("op %+v, stdout %q", op, p.stdout.String())
	}
	_, _, err = oneCommand(exec.Command("sh", "-c", "echo oops >&2; exit 3"))
	if err == nil || !strings.Contains(err.Error(), "exit status 3") || !strings.Contains(err.Error(), "oops") {
		t.Errorf("failing command: %v", err)
	}
	_, _, err = oneCommand(exec.Command(t.TempDir() + "/missing"))
	if err == nil {
		t.Error("missing command: no error")
	}
	q := startOp()
	q.run(exec.Command("true"))
	q.run(exec.Command("true"))
	if op := q.finish(); op.Procs != 2 {
		t.Errorf("two commands: %d processes", op.Procs)
	}
}

func TestForeignShare(t *testing.T) {
	s := time.Second
	cases := []struct {
		busy, own, d time.Duration
		min, max     float64
	}{
		{0, 0, 0, 0, 0},
		{s, s, s, 0, 0},     // all busy time was the operation's
		{s, 2 * s, s, 0, 0}, // clamped at 0
		{1000 * s, 0, s, 1, 1},
	}
	for _, tc := range cases {
		if got := foreignShare(tc.busy, tc.own, tc.d); got < tc.min || got > tc.max {
			t.Errorf("foreignShare(%v, %v, %v) = %v", tc.busy, tc.own, tc.d, got)
		}
	}
}

func TestProcReaders(t *testing.T) {
	if kb := statusKB("/proc/self/status", "VmRSS"); kb <= 0 {
		t.Errorf("VmRSS of self: %d", kb)
	}
	if kb := pidStatusKB(os.Getpid(), "NoSuchField"); kb != 0 {
		t.Errorf("missing field: %d", kb)
	}
	if ticks := pidCPUTicks(-1); ticks != 0 {
		t.Errorf("ticks of no process: %d", ticks)
	}
	if cpuStat() <= 0 {
		t.Error("cpuStat of the machine is 0")
	}
	if daemonAlive(os.Getpid()) || daemonAlive(0) {
		t.Error("daemonAlive of a process that is no watch daemon")
	}
}

func TestDocs(t *testing.T) {
	doc, err := parseSnapDoc([]byte(`{"snapshot":"s1","stats":{"files":3,"uncaptured":["a","b"],"other":1}}`), "snap", PhaseCold)
	if err != nil || doc.Snapshot != "s1" {
		t.Fatalf("snap: %v %+v", err, doc)
	}
	if st := tbStats(doc.Stats); st["files"] != 3.0 || st["uncaptured"] != 2 || st["other"] != nil {
		t.Errorf("tbStats: %v", st)
	}
	for _, tc := range []struct{ out, phase, want string }{
		{`{`, PhaseCold, "bad JSON"},
		{`{"message":"nothing"}`, PhaseCold, "recorded no snapshot: nothing"},
		{`{"snapshot":"s","message":"no open turn"}`, PhaseTurn, "turnback end: no open turn"},
	} {
		if _, err := parseSnapDoc([]byte(tc.out), "snap", tc.phase); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.out, err, tc.want)
		}
	}
	var op Op
	if err := checkUndoDoc(&op, []byte(`{"turns":1,"restored":["a"],"created":["b","c"]}`)); err != nil || op.Info["restored"] != 1 || op.Info["created"] != 2 {
		t.Errorf("undo: %v %v", err, op.Info)
	}
	if err := checkUndoDoc(&op, []byte(`{"turns":2}`)); err == nil {
		t.Error("undo of 2 turns: no error")
	}
}

func TestSanitize(t *testing.T) {
	if got := Sanitize("user:my dir/x"); got != "user_my_dir_x" {
		t.Errorf("Sanitize = %q", got)
	}
	if got := captureArgs(PhaseTurn); strings.Join(got, " ") != "end" {
		t.Errorf("turn: %v", got)
	}
	if got := captureArgs(PhaseCold); strings.Join(got, " ") != "snap -m bench cold" {
		t.Errorf("cold: %v", got)
	}
}
