package cli

// review43: undo and redo that rewrite ignore rules, killed (SIGKILL)
// while they capture their result again (settle.go), after the files
// are in place and before the records are committed.

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/turnback/turnback/internal/testtier"
	"github.com/turnback/turnback/manifest/treetest"
	"github.com/turnback/turnback/watch/daemon"
)

// settleKillGen is the user's generated output: 12 directories of 150
// files, ignored by the turn's rule "gen*/" and un-ignored by its undo.
func settleKillGen() treetest.Tree {
	s := treetest.Tree{}
	for d := range 12 {
		for f := range 150 {
			s[fmt.Sprintf("gen%02d/out%03d.txt", d, f)] = treetest.Entry{Kind: treetest.KindFile, Data: fmt.Sprintf("output %d/%d\n", d, f)}
		}
	}
	return s
}

// settleKilled runs args with the trace on, SIGKILLs it (or, with
// kill, calls kill) d after its trace reports the step named step, and
// returns the exit code (-1: killed) and the steps it reported.
func settleKilled(t *testing.T, e *cliEnv, step string, d time.Duration, kill func(), args ...string) (int, []string) {
	t.Helper()
	cmd := e.with("TURNBACK_TEST_TRACE=1").command(args...)
	if kill == nil {
		kill = func() { _ = cmd.Process.Kill() }
	}
	pr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var steps []string
	var timer *time.Timer
	fired := make(chan struct{})
	sc := bufio.NewScanner(pr)
	for sc.Scan() {
		s, ok := crashParseStep(sc.Text())
		if !ok {
			continue
		}
		steps = append(steps, s)
		if strings.HasSuffix(s, ": "+step) && timer == nil {
			timer = time.AfterFunc(d, func() { kill(); close(fired) })
		}
	}
	_ = cmd.Wait()
	// No kill once the command is over: the next one must not meet it.
	if timer != nil && !timer.Stop() {
		<-fired
	}
	return cmd.ProcessState.ExitCode(), steps
}

// TestSettleKilled: an undo that removes the rule "gen*/" (un-ignoring
// 1,800 files of the user's) and a redo that puts it back, each killed
// at random moments of its recapture. After each kill, status finishes
// the command; then the folder is the command's result byte for byte,
// the journal is gone, log agrees, status lists no change and verify
// passes; and the next undo or redo works from there.
func TestSettleKilled(t *testing.T) {
	testtier.Slow(t)
	t.Parallel()
	settleKillRounds(t, false)
}

// TestSettleKilledDaemon is TestSettleKilled with a watch daemon that
// runs the commands: the daemon is the process killed, and the next
// command, which finds its socket stale, finishes the command.
func TestSettleKilledDaemon(t *testing.T) {
	testtier.Slow(t)
	t.Parallel()
	settleKillRounds(t, true)
}

func settleKillRounds(t *testing.T, withDaemon bool) {
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 43))
	gen := settleKillGen()
	before := treetest.Tree{
		".gitignore": {Kind: treetest.KindFile, Data: "*.log\n"},
		"a.txt":      {Kind: treetest.KindFile, Data: "one\n"},
	}
	after := treetest.Tree{
		".gitignore": {Kind: treetest.KindFile, Data: "*.log\ngen*/\n"},
		"a.txt":      {Kind: treetest.KindFile, Data: "two\n"},
	}
	e := newStoreEnv(t)
	treetest.MustWrite(t, e.dir, before)
	e.ok("snap", "-m", "turn")
	treetest.MustWrite(t, e.dir, after)
	e.ok("end")
	treetest.MustWrite(t, e.dir, gen)
	undone, redone := before.Merge(gen), after.Merge(gen)
	dirsOf := func(tr treetest.Tree) treetest.Tree {
		out := treetest.Tree{}
		for p, n := range tr {
			out[p] = n
			for q := filepath.Dir(p); q != "."; q = filepath.Dir(q) {
				out[filepath.ToSlash(q)] = treetest.Entry{Kind: treetest.KindDir}
			}
		}
		return out
	}
	check := func(what string, want treetest.Tree, isUndone bool) {
		t.Helper()
		e.ok("status")
		e.wantTree(what, dirsOf(want))
		for _, name := range []string{"journal", "staging"} { // a stale "committed" is harmless
			if _, err := os.Stat(filepath.Join(e.store, name)); err == nil {
				t.Fatalf("%s: %s left in the store", what, name)
			}
		}
		var st struct {
			Changes []json.RawMessage `json:"changes"`
		}
		e.okJSON(&st, "status")
		if len(st.Changes) != 0 {
			t.Fatalf("%s: status lists changes: %s", what, st.Changes)
		}
		if got := strings.Contains(e.ok("log").stdout, "undone"); got != isUndone {
			t.Fatalf("%s: log lists the turn undone: %v, want %v\n%s", what, got, isUndone, e.ok("log").stdout)
		}
		e.verify()
	}
	start := time.Now()
	code, steps := settleKilled(t, e, "no such step", 0, nil, "undo")
	if code != 0 {
		t.Fatalf("undo: exit %d; steps %v", code, steps)
	}
	full := time.Since(start)
	check("undo", undone, true)
	code, rsteps := settleKilled(t, e, "no such step", 0, nil, "redo")
	if code != 0 {
		t.Fatalf("redo: exit %d", code)
	}
	check("redo", redone, false)
	t.Logf("an undo takes %v", full.Round(time.Millisecond))
	kills := 0
	for i := range 16 {
		op, want, isUndone := "undo", undone, true
		if i%2 == 1 {
			op, want, isUndone = "redo", redone, false
		}
		// The recapture and commit take some 5 to 20 ms.
		d := time.Duration(rng.Int64N(int64(12 * time.Millisecond)))
		var kill func()
		if withDaemon {
			if _, ok := daemon.Ping(e.store); !ok {
				if r := e.run("watch", "--detach", "--idle-timeout", "10m"); r.code != 0 {
					t.Fatalf("watch --detach: %v", r)
				}
			}
			info, ok := daemon.Ping(e.store)
			if !ok {
				t.Fatal("no daemon answers after watch --detach")
			}
			kill = func() {
				if p, err := os.FindProcess(info.PID); err == nil {
					_ = p.Kill()
				}
			}
		}
		code, steps := settleKilled(t, e, "commit", d, kill, op)
		last := ""
		if len(steps) > 0 {
			last = steps[len(steps)-1]
		}
		mid := code == -1
		if withDaemon {
			// The client exits 1 when its daemon dies under it.
			_, alive := daemon.Ping(e.store)
			mid = !alive && code != 0
		}
		if mid {
			kills++
		}
		t.Logf("%s killed %v after its commit step: exit %d (killed before the end: %v), last step %q", op, d.Round(time.Microsecond), code, mid, last)
		check(fmt.Sprintf("%s killed after %v", op, d), want, isUndone)
	}
	t.Logf("%d of 16 killed before they exited", kills)
	if withDaemon {
		e.run("watch", "--stop")
		return
	}
	// The command killed at its commit step, and the command that
	// finishes it killed too, in its recapture; the next one finishes.
	commitAt := func(steps []string) string {
		for _, s := range steps {
			if n, name, _ := strings.Cut(s, ": "); name == "commit" {
				return n
			}
		}
		t.Fatalf("no commit step in %v", steps)
		return ""
	}
	for i := range 6 {
		op, want, isUndone, at := "undo", undone, true, commitAt(steps)
		if i%2 == 1 {
			op, want, isUndone, at = "redo", redone, false, commitAt(rsteps)
		}
		crash := e.with("TURNBACK_TEST_CRASH_AT=" + at).command(op)
		if _ = crash.Run(); crash.ProcessState.ExitCode() != -1 {
			t.Fatalf("%s with TURNBACK_TEST_CRASH_AT=%s: exit %d, want killed", op, at, crash.ProcessState.ExitCode())
		}
		d := time.Duration(rng.Int64N(int64(30 * time.Millisecond)))
		cmd := e.command("status")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(d)
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		t.Logf("%s killed at its commit step; status killed after %v: exit %d", op, d.Round(time.Microsecond), cmd.ProcessState.ExitCode())
		check(fmt.Sprintf("%s, then its recovery killed after %v", op, d), want, isUndone)
	}
}
