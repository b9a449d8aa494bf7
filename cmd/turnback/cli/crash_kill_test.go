package cli

// The crash matrix's real kills and full disks: SIGKILL at arbitrary
// moments of undo, redo and restore, and ENOSPC at each step.

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// crashNoSpace: a step fails with ENOSPC. Before the commit point the
// command fails and nothing changes; after it the command fails and the
// next command finishes the restore.
func crashNoSpace(t *testing.T, pool *crashPool) {
	w0 := pool.first()
	steps := w0.undoSteps
	j := slices.Index(steps, "journal") + 1
	type fc struct {
		args  []string
		steps []string
		from  func(w *crashWorld) string
		k     int
	}
	var cases []fc
	for _, k := range []int{1, 2, 3, w0.stages / 2, j - 1, j} {
		cases = append(cases, fc{[]string{"undo"}, steps, func(w *crashWorld) string { return w.pristineNew }, k})
	}
	// After the commit point too: first remove, a place, commit, clear journal.
	firstPlace := slices.IndexFunc(steps, func(s string) bool { return strings.HasPrefix(s, "place ") }) + 1
	for _, k := range []int{j + 1, (firstPlace + len(steps)) / 2, len(steps) - 1, len(steps)} {
		cases = append(cases, fc{[]string{"undo"}, steps, func(w *crashWorld) string { return w.pristineNew }, k})
	}
	rj := slices.Index(w0.redoSteps, "journal") + 1
	cases = append(cases,
		fc{[]string{"redo"}, w0.redoSteps, func(w *crashWorld) string { return w.pristineUndone }, 1},
		fc{[]string{"redo"}, w0.redoSteps, func(w *crashWorld) string { return w.pristineUndone }, rj - 1},
		fc{[]string{"restore", w0.oldID}, w0.restoreSteps, func(w *crashWorld) string { return w.pristineNew }, 2},
		fc{[]string{"restore", w0.oldID}, w0.restoreSteps, func(w *crashWorld) string { return w.pristineNew }, slices.Index(w0.restoreSteps, "journal")},
	)
	if testing.Short() {
		cases = []fc{cases[0], cases[3], cases[6], cases[10]}
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%s-step%04d", c.args[0], c.k), func(t *testing.T) {
			t.Parallel()
			w := pool.get()
			defer pool.put(w)
			w.reset(t, c.from(w))
			before := w.which(t)
			cj := slices.Index(c.steps, "journal") + 1
			name := c.steps[c.k-1]
			t.Logf("ENOSPC at step %d of %d: %q (journal is step %d)", c.k, len(c.steps), name, cj)
			r := w.run(t, []string{"TURNBACK_TEST_FAIL_AT=" + strconv.Itoa(c.k)}, c.args...)
			if r.code != 1 {
				t.Fatalf("turnback %s with ENOSPC at step %d: exit %d, want 1\nstdout:\n%s\nstderr:\n%s", strings.Join(c.args, " "), c.k, r.code, r.stdout, r.stderr)
			}
			if !strings.Contains(r.stderr, "no space left on device") {
				t.Errorf("stderr does not mention the full disk:\n%s", r.stderr)
			}
			wantOld := c.args[0] != "redo"
			if c.k <= cj {
				// Before the commit point: nothing changed, nothing left behind.
				if got := w.which(t); got != before {
					t.Fatalf("after the failed %s the tree is the %s state, want it unchanged (%s)", c.args[0], got, before)
				}
				w.noStoreLeftovers(t)
				if c.args[0] != "restore" && w.undone(t) != (before == "old") {
					t.Errorf("the failed %s changed the session", c.args[0])
				}
				// The same command without the failure then works.
				w.ok(t, c.args...)
				if wantOld {
					w.want(t, "old")
				} else {
					w.want(t, "new")
				}
			} else {
				// After the commit point the failed command leaves the
				// restore half done (and its staged files in the tree)
				// for the next command to finish.
				if st, staging, err := crashScan(w.wt); err == nil {
					t.Logf("the failed command left %d paths differing from OLD, %d from NEW, %d staged files", len(crashDiff(st, w.old)), len(crashDiff(st, w.new)), len(staging))
				}
				w.ok(t, "status")
				w.noStoreLeftovers(t)
				w.want(t, "old")
				if !w.undone(t) {
					t.Error("log does not list turn 1 as undone after the undo was finished")
				}
				w.clean(t)
				w.ok(t, "redo")
				w.want(t, "new")
			}
			w.noStoreLeftovers(t)
		})
	}
}

// crashSigkill kills a running undo (no failpoints) with SIGKILL at
// moments no failpoint marks: after delays from its start (opening the
// store, capture, planning, staging), after delays from the moment its
// trace reports a given step (the kill lands somewhere in the work that
// follows: renames, removals, the chmods after the last place step, the
// metadata commit), and during the recovery that the next command runs.
func crashSigkill(t *testing.T, pool *crashPool) {
	w0 := pool.first()
	seed := uint64(time.Now().UnixNano())
	rng := rand.New(rand.NewPCG(seed, 99))
	T := w0.undoTime
	steps := w0.undoSteps
	S := len(steps)
	j := slices.Index(steps, "journal") + 1
	firstPlace := slices.IndexFunc(steps, func(s string) bool { return strings.HasPrefix(s, "place ") }) + 1
	type kill struct {
		k int           // 0: from the start
		d time.Duration // delay after the start or after step k
	}
	jitter := func(max time.Duration) time.Duration { return time.Duration(rng.Int64N(int64(max) + 1)) }
	kills := []kill{{0, 0}, {0, 50*time.Millisecond + jitter(150*time.Millisecond)}}
	for i := 0; i < 3; i++ {
		kills = append(kills, kill{0, time.Duration((float64(i) + rng.Float64()) / 3 * 1.2 * float64(T))})
	}
	for _, d := range []time.Duration{0, 2 * time.Millisecond, 10 * time.Millisecond, 40 * time.Millisecond} {
		kills = append(kills, kill{j, d + jitter(d/2)})
	}
	for _, k := range []int{w0.stages / 2, j - 1, firstPlace - 1, (firstPlace + S) / 2, S - 2} {
		kills = append(kills, kill{k, 0})
	}
	if testing.Short() {
		kills = []kill{{0, jitter(200 * time.Millisecond)}, {j, jitter(5 * time.Millisecond)}, {S - 2, 0}}
	}
	t.Logf("seed %d; a full undo took %v; %d kills", seed, T.Round(time.Millisecond), len(kills))
	for i, kl := range kills {
		if kl.k < 0 || kl.k > S {
			continue
		}
		t.Run(fmt.Sprintf("step%04d+%v", kl.k, kl.d.Round(time.Microsecond)), func(t *testing.T) {
			t.Parallel()
			w := pool.get()
			defer pool.put(w)
			w.reset(t, w.pristineNew)
			code, last := w.killAt(t, kl.k, kl.d)
			at := "the start"
			if kl.k > 0 {
				at = fmt.Sprintf("step %d (%q)", kl.k, steps[kl.k-1])
			}
			t.Logf("killed %v after %s: exit %d, last step reported %q", kl.d, at, code, last)
			crashAfterKill(t, w, i%3 == 0)
		})
	}
	// A crash during recovery: kill undo after the commit point, then kill
	// the recovering command too, then recover.
	delays := []time.Duration{0, 30 * time.Millisecond, 100 * time.Millisecond}
	if testing.Short() {
		delays = delays[1:2]
	}
	for i, d := range delays {
		t.Run(fmt.Sprintf("recovery-killed-after%v", d), func(t *testing.T) {
			t.Parallel()
			w := pool.get()
			defer pool.put(w)
			w.reset(t, w.pristineNew)
			k := j + 1 + i*(S-j-1)/len(delays)
			r := w.run(t, []string{"TURNBACK_TEST_CRASH_AT=" + strconv.Itoa(k)}, "undo")
			if r.code != -1 {
				t.Fatalf("undo with TURNBACK_TEST_CRASH_AT=%d: exit %d, want killed", k, r.code)
			}
			ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
			defer cancel()
			cmd := w.command(ctx, nil, "status")
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			time.Sleep(d + jitter(d/2))
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
			t.Logf("undo killed at step %d; status killed after %v (exit %d; journal left: %v)", k, d, cmd.ProcessState.ExitCode(), w.storeLeftovers(t))
			w.ok(t, "status")
			w.noStoreLeftovers(t)
			w.want(t, "old")
			if !w.undone(t) {
				t.Error("log does not list turn 1 as undone")
			}
			w.clean(t)
		})
	}
}

// killAt starts undo and SIGKILLs it d after it starts (k == 0) or d
// after its trace reports step k. It returns the exit code (-1: killed)
// and the last step the trace reported.
func (w *crashWorld) killAt(t *testing.T, k int, d time.Duration) (int, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	cmd := w.command(ctx, crashTraceOn, "undo")
	cmd.Stdout = io.Discard
	pr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	killLater := func() {
		if d == 0 {
			_ = cmd.Process.Kill()
			return
		}
		time.AfterFunc(d, func() { _ = cmd.Process.Kill() })
	}
	var last string
	done := make(chan struct{})
	go func() {
		defer close(done)
		sc := bufio.NewScanner(pr)
		want := strconv.Itoa(k) + ": "
		for sc.Scan() {
			s, ok := crashParseStep(sc.Text())
			if !ok {
				continue
			}
			last = s
			if k > 0 && strings.HasPrefix(s, want) {
				killLater()
			}
		}
	}()
	if k == 0 {
		killLater()
	}
	<-done
	_ = cmd.Wait()
	if ctx.Err() != nil {
		t.Fatal("undo timed out")
	}
	return cmd.ProcessState.ExitCode(), last
}

// crashAfterKill recovers with `status` and checks that the tree is OLD
// or NEW, that the session agrees, and (followUp) that it goes on
// working.
func crashAfterKill(t *testing.T, w *crashWorld, followUp bool) {
	t.Helper()
	w.ok(t, "status")
	w.noStoreLeftovers(t)
	got := w.which(t)
	if t.Failed() {
		return
	}
	if undone := w.undone(t); undone != (got == "old") {
		t.Fatalf("tree is %s but log lists turn 1 undone=%v", got, undone)
	}
	w.clean(t)
	if !followUp {
		return
	}
	if got == "old" {
		w.ok(t, "redo")
		w.want(t, "new")
	} else {
		w.ok(t, "undo")
		w.want(t, "old")
	}
	w.clean(t)
}
