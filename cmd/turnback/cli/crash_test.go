package cli

// Crash and full-disk tests of the restore (invariant 2, all or nothing):
// a turn that touches about 1,350 paths is undone, redone and restored
// while the process is killed (failpoints at named steps, and real
// SIGKILLs at arbitrary moments) or a step fails with ENOSPC; after the
// next command the work tree must be exactly the old state or exactly the
// new one, byte for byte, and the session must agree with it.
//
// The tests run the built binary (testBinary) in temporary work trees,
// with HOME and XDG_DATA_HOME pointing into temporary directories. Each
// worker ("world", crash_world_test.go) has its own work tree and store and
// resets them between runs by copying pristine copies back; the tree and
// the turn are built by crash_fixture_test.go; real kills and full disks
// are in crash_kill_test.go.

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/internal/testtier"
)

// crashWorkers is how many worlds (work tree + store) run crash points in
// parallel.
const crashWorkers = 2

func crashSkipNonUnix(t *testing.T) {
	t.Helper()
	switch runtime.GOOS {
	case "windows", "plan9", "js", "wasip1":
		t.Skipf("crash tests need Unix signals and file semantics (GOOS=%s)", runtime.GOOS)
	}
}

// crashPoints picks 1-based step numbers: every one of the first `head`,
// `perStage` spread over the staging steps, every step within `around`
// of "journal", `perApply` spread over the remove/place steps, and the
// last `tail` steps (commit, clear journal), plus the last remove step,
// the first place step and the last place step. A spread cuts its range
// in equal parts and takes one step of each: the middle one, or one
// drawn from rng when it is not nil, so each run tries other steps.
func crashPoints(rng *rand.Rand, steps []string, head, perStage, around, perApply, tail int) []int {
	set := map[int]bool{}
	S := len(steps)
	add := func(k int) {
		if k >= 1 && k <= S {
			set[k] = true
		}
	}
	spread := func(lo, hi, n int) {
		if hi < lo || n <= 0 {
			return
		}
		for i := 0; i < n; i++ {
			u := 0.5
			if rng != nil {
				u = rng.Float64()
			}
			add(lo + int(float64(hi-lo)*(float64(i)+u)/float64(n)))
		}
	}
	for k := 1; k <= head; k++ {
		add(k)
	}
	j := slices.Index(steps, "journal") + 1
	spread(head+1, j-around-1, perStage)
	for k := j - around; k <= j+around; k++ {
		add(k)
	}
	spread(j+around+1, S-tail, perApply)
	for k := S - tail + 1; k <= S; k++ {
		add(k)
	}
	firstPlace := slices.IndexFunc(steps, func(s string) bool { return strings.HasPrefix(s, "place ") }) + 1
	add(firstPlace - 1)
	add(firstPlace)
	add(S - 2) // last place
	out := make([]int, 0, len(set))
	for k := range set {
		out = append(out, k)
	}
	sort.Ints(out)
	return out
}

// crashSeed is TURNBACK_CRASH_SEED, or else the clock. It is logged:
// setting the variable to it runs the same crash points again.
func crashSeed(t *testing.T) uint64 {
	t.Helper()
	seed := uint64(time.Now().UnixNano())
	if v := os.Getenv("TURNBACK_CRASH_SEED"); v != "" {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			t.Fatalf("TURNBACK_CRASH_SEED=%q: %v", v, err)
		}
		seed = n
	}
	t.Logf("crash points drawn with seed %d (TURNBACK_CRASH_SEED=%d draws them again)", seed, seed)
	return seed
}

// crashSomeFlips is n of crashFlips drawn by rng, all of them when n
// is as many.
func crashSomeFlips(rng *rand.Rand, n int) []string {
	flips := slices.Clone(crashFlips)
	rng.Shuffle(len(flips), func(i, j int) { flips[i], flips[j] = flips[j], flips[i] })
	return flips[:min(n, len(flips))]
}

// crashWithFlips adds to points the steps that place each of flips
// (between taking away the old thing at a flipped path and putting the
// new one there), and sorts them.
func crashWithFlips(steps []string, points []int, flips []string) []int {
	for _, p := range flips {
		if k := slices.Index(steps, "place "+p) + 1; k > 0 && !slices.Contains(points, k) {
			points = append(points, k)
		}
	}
	sort.Ints(points)
	return points
}

// crashShortPoints: the first step, the commit point and the step after
// it, and the last two (commit, clear journal).
func crashShortPoints(steps []string) []int {
	j := slices.Index(steps, "journal") + 1
	return []int{1, j, j + 1, len(steps) - 1, len(steps)}
}

func TestCrashMatrix(t *testing.T) {
	testtier.Slow(t)
	t.Parallel()
	crashSkipNonUnix(t)
	start := time.Now()
	pool := newCrashPool(t)
	w0 := pool.first()
	if w0.touched < 1200 {
		t.Fatalf("the turn touches %d paths, want about 1,350", w0.touched)
	}
	// The undo stages more files than the restore's fsync batch keeps
	// open (restore/durable.go: 3 chunks of 128), so staging waits on
	// chunk syncs and crash points land between them.
	if w0.stages < 512 {
		t.Fatalf("the undo stages %d files, want at least 512", w0.stages)
	}
	if !slices.Equal(w0.undoSteps, w0.restoreSteps) {
		t.Logf("note: restore ID and undo run different step lists (%d vs %d steps)", len(w0.restoreSteps), len(w0.undoSteps))
	}
	for _, cmd := range [][]string{w0.undoSteps, w0.redoSteps, w0.restoreSteps} {
		S := len(cmd)
		if S < 4 || cmd[S-2] != "commit" || cmd[S-1] != "clear journal" || !slices.Contains(cmd, "journal") {
			t.Fatalf("unexpected step list: %d steps ending in %q", S, cmd[max(0, S-3):])
		}
	}
	t.Logf("setup took %v", time.Since(start).Round(time.Millisecond))
	// Each run tries steps drawn at random within fixed strata, and six
	// of the eleven type flips (four on redo): over runs, every step.
	rng := rand.New(rand.NewPCG(crashSeed(t), 7))
	pool.rng = rng

	t.Run("undo", func(t *testing.T) {
		steps := w0.undoSteps
		points := crashWithFlips(steps, crashPoints(rng, steps, 4, 2, 2, 5, 3), crashSomeFlips(rng, 6))
		if testing.Short() {
			points = crashPoints(nil, steps, 2, 2, 1, 4, 2)
		}
		crashAtPoints(t, pool, steps, points, func(w *crashWorld, i, k int) crashCase {
			return crashCase{
				from: w.pristineNew, args: []string{"undo"}, steps: steps, k: k,
				recoverWith: []string{"status", "log", "diff", "show " + w.newID[:12]}[i%4],
				pre:         "new", post: "old", followUp: crashFollowUp(steps, i, k),
			}
		})
	})

	t.Run("redo", func(t *testing.T) {
		steps := w0.redoSteps
		points := crashWithFlips(steps, crashPoints(rng, steps, 1, 1, 1, 2, 2), crashSomeFlips(rng, 4))
		if testing.Short() {
			points = crashShortPoints(steps)
		}
		crashAtPoints(t, pool, steps, points, func(w *crashWorld, i, k int) crashCase {
			return crashCase{
				from: w.pristineUndone, args: []string{"redo"}, steps: steps, k: k,
				recoverWith: "status", pre: "old", post: "new", followUp: crashFollowUp(steps, i, k),
			}
		})
	})

	t.Run("restoreID", func(t *testing.T) {
		steps := w0.restoreSteps
		points := crashPoints(rng, steps, 1, 1, 1, 3, 2)
		if testing.Short() {
			points = crashShortPoints(steps)
		}
		crashAtPoints(t, pool, steps, points, func(w *crashWorld, i, k int) crashCase {
			return crashCase{
				from: w.pristineNew, args: []string{"restore", w.oldID[:12]}, steps: steps, k: k,
				recoverWith: "status", pre: "new", post: "old", followUp: crashFollowUp(steps, i, k), restore: true,
			}
		})
	})

	t.Run("nospace", func(t *testing.T) {
		crashNoSpace(t, pool)
	})

	t.Run("sigkill", func(t *testing.T) {
		crashSigkill(t, pool)
	})

	t.Run("daemon", func(t *testing.T) {
		crashDaemon(t, pool)
	})
	t.Logf("total %v", time.Since(start).Round(time.Millisecond))
}

// crashAtPoints runs crashOne at each of points, in parallel subtests
// on the pool's worlds; mk makes the case of the i-th point, k, on w.
func crashAtPoints(t *testing.T, pool *crashPool, steps []string, points []int, mk func(w *crashWorld, i, k int) crashCase) {
	t.Logf("%d crash points out of %d steps", len(points), len(steps))
	for i, k := range points {
		t.Run(fmt.Sprintf("step%04d", k), func(t *testing.T) {
			t.Parallel()
			w := pool.get()
			defer pool.put(w)
			crashOne(t, w, mk(w, i, k))
		})
	}
}

// crashFollowUp says whether the i-th point, k, also checks that the
// session goes on working: every fourth, and the steps around the commit
// point and the end. So each run follows up a crash before the commit
// point and one after it.
func crashFollowUp(steps []string, i, k int) bool {
	j := slices.Index(steps, "journal") + 1
	return i%4 == 0 || k == j || k == j+1 || k >= len(steps)-1
}

type crashCase struct {
	from        string   // pristine copy to start from
	args        []string // the restoring command
	steps       []string // its full step list
	k           int      // 1-based step to crash at
	recoverWith string   // the command that runs next (it recovers)
	pre, post   string   // expected state for a crash before / after the commit point
	followUp    bool     // also check that the session goes on working
	restore     bool     // `restore ID`: the session's turns do not change
	daemon      bool     // run the command through a watch daemon, which is the one killed
}

// crashOne kills the command at step k, runs another command, and checks
// the work tree, the store and the session.
func crashOne(t *testing.T, w *crashWorld, c crashCase) {
	w.reset(t, c.from)
	j := slices.Index(c.steps, "journal") + 1
	name := c.steps[c.k-1]
	t.Logf("crash at step %d of %d: %q (journal is step %d)", c.k, len(c.steps), name, j)
	crashAt := []string{"TURNBACK_TEST_CRASH_AT=" + strconv.Itoa(c.k)}
	if c.daemon {
		// The daemon runs the restore and dies at the step.
		w.startDaemon(t, crashAt...)
		crashAt = nil
	}
	r := w.run(t, append(crashAt, crashTraceOn...), c.args...)
	switch {
	case c.daemon && (r.code != 1 || !strings.Contains(r.stderr, "ended before the command finished")):
		t.Fatalf("turnback %s through the daemon with TURNBACK_TEST_CRASH_AT=%d: exit %d, want 1 and the daemon's death reported\nstderr:\n%s", strings.Join(c.args, " "), c.k, r.code, r.stderr)
	case c.daemon:
		w.daemonGone(t)
	case r.code != -1:
		t.Fatalf("turnback %s with TURNBACK_TEST_CRASH_AT=%d: exit %d, want killed\nstderr:\n%s", strings.Join(c.args, " "), c.k, r.code, r.stderr)
	}
	if got, want := r.lastStep(), fmt.Sprintf("%d: %s", c.k, name); got != want {
		t.Fatalf("killed after step %q, want %q", got, want)
	}
	r = w.run(t, nil, strings.Fields(c.recoverWith)...)
	if r.code != 0 {
		t.Fatalf("turnback %s after the crash: exit %d\nstdout:\n%s\nstderr:\n%s", c.recoverWith, r.code, r.stdout, r.stderr)
	}
	w.noStoreLeftovers(t)
	want := c.pre
	if c.k > j {
		want = c.post
	}
	got := w.which(t)
	if got != want && got != "mix" {
		t.Errorf("crash at step %d (%q): work tree is the %s state, want the %s state", c.k, name, got, want)
	}
	if t.Failed() {
		return
	}
	// The session must agree with the disk.
	undone := w.undone(t)
	if c.restore {
		if undone {
			t.Errorf("restore ID changed the session: turn 1 is listed as undone")
		}
	} else if undone != (got == "old") {
		t.Errorf("tree is %s but log lists turn 1 undone=%v", got, undone)
	}
	if !c.restore {
		w.clean(t)
	}
	if !c.followUp || t.Failed() {
		return
	}
	switch {
	case c.restore && got == "old":
		w.ok(t, "restore", w.newID[:12])
		w.want(t, "new")
	case c.restore:
		w.ok(t, "restore", w.oldID[:12])
		w.want(t, "old")
	case got == "old":
		w.ok(t, "redo")
		w.want(t, "new")
		if w.undone(t) {
			t.Error("after redo, log still lists turn 1 as undone")
		}
	default:
		w.ok(t, "undo")
		w.want(t, "old")
		if !w.undone(t) {
			t.Error("after undo, log does not list turn 1 as undone")
		}
	}
	w.noStoreLeftovers(t)
	if !c.restore {
		w.clean(t)
	}
}

// TestCrashTypeFlips: undo, redo and restore of a turn that turns a
// directory with content into a file or symlink, or the other way round.
// The crash matrix's turn does all of these; this is the quick check of
// the uninterrupted case (it failed with "manifest: edit P: changes below
// a file" before bec7b1f).
func TestCrashTypeFlips(t *testing.T) {
	testtier.Slow(t)
	t.Parallel()
	crashSkipNonUnix(t)
	bin := testBinary(t)
	flips := []struct {
		name string
		old  func(c crashTree)
		turn func(c crashTree)
	}{
		{"file-to-populated-dir", func(c crashTree) { c.write("p", 0o644, []byte("file\n")) },
			func(c crashTree) { c.remove("p"); c.write("p/inner/x.txt", 0o644, []byte("x\n")) }},
		{"populated-dir-to-file", func(c crashTree) { c.write("p/inner/x.txt", 0o644, []byte("x\n")) },
			func(c crashTree) { c.remove("p"); c.write("p", 0o755, []byte("file\n")) }},
		{"populated-dir-to-symlink", func(c crashTree) { c.write("p/x.txt", 0o644, []byte("x\n")); c.mkdir("q", 0o755) },
			func(c crashTree) { c.remove("p"); c.symlink("q", "p") }},
		{"symlink-to-populated-dir", func(c crashTree) { c.mkdir("q", 0o755); c.symlink("q", "p") },
			func(c crashTree) { c.remove("p"); c.write("p/x.txt", 0o644, []byte("x\n")) }},
		{"file-to-empty-dir", func(c crashTree) { c.write("p", 0o644, []byte("file\n")) },
			func(c crashTree) { c.remove("p"); c.mkdir("p", 0o755) }},
		{"empty-dir-to-file", func(c crashTree) { c.mkdir("p", 0o755) },
			func(c crashTree) { c.remove("p"); c.write("p", 0o644, []byte("file\n")) }},
	}
	for _, f := range flips {
		t.Run(f.name, func(t *testing.T) {
			base := t.TempDir()
			w := &crashWorld{bin: bin, base: base, wt: filepath.Join(base, "work"), xdg: filepath.Join(base, "xdg"), home: filepath.Join(base, "home")}
			c := crashTree{t: t, root: w.wt}
			c.mkdir(".", 0o755)
			c.write("other.txt", 0o644, []byte("untouched\n"))
			f.old(c)
			w.old = w.state(t)
			w.oldID = crashSnapID(t, w.ok(t, "--json", "snap"))
			f.turn(c)
			w.new = w.state(t)
			w.newID = crashSnapID(t, w.ok(t, "--json", "end"))
			if r := w.run(t, nil, "undo"); r.code != 0 {
				t.Fatalf("undo: exit %d\n%s%s", r.code, r.stdout, r.stderr)
			}
			w.want(t, "old")
			if r := w.run(t, nil, "redo"); r.code != 0 {
				t.Fatalf("redo: exit %d\n%s%s", r.code, r.stdout, r.stderr)
			}
			w.want(t, "new")
			if r := w.run(t, nil, "restore", w.oldID); r.code != 0 {
				t.Fatalf("restore %s: exit %d\n%s%s", w.oldID[:12], r.code, r.stdout, r.stderr)
			}
			w.want(t, "old")
			if r := w.run(t, nil, "restore", w.newID); r.code != 0 {
				t.Fatalf("restore %s: exit %d\n%s%s", w.newID[:12], r.code, r.stdout, r.stderr)
			}
			w.want(t, "new")
		})
	}
}

// TestCrashEditBeforeRecovery: a restore is killed after its commit
// point, then files it has yet to replace or remove are edited (an agent
// keeps working, a user fixes things by hand) before the next turnback
// command rolls the restore forward. Invariant 1: no command destroys
// content the store lacks; each edit must still be on disk or be in the
// store afterwards.
func TestCrashEditBeforeRecovery(t *testing.T) {
	t.Parallel()
	crashSkipNonUnix(t)
	bin := testBinary(t)
	base := crashTempDir(t)
	w := &crashWorld{bin: bin, base: base, wt: filepath.Join(base, "work"), xdg: filepath.Join(base, "xdg"), home: filepath.Join(base, "home"),
		pristineNew: filepath.Join(base, "pristine-new")}
	c := crashTree{t: t, root: w.wt}
	c.mkdir(".", 0o755)
	for i := 0; i < 10; i++ {
		c.write(fmt.Sprintf("f%02d", i), 0o644, []byte(fmt.Sprintf("old %d\n", i)))
		c.write(fmt.Sprintf("h%02d", i), 0o644, []byte(fmt.Sprintf("deleted by the turn %d\n", i)))
	}
	w.ok(t, "snap")
	for i := 0; i < 10; i++ {
		c.write(fmt.Sprintf("f%02d", i), 0o644, []byte(fmt.Sprintf("new %d\n", i)))
		c.write(fmt.Sprintf("g%02d", i), 0o644, []byte(fmt.Sprintf("created by the turn %d\n", i)))
		c.remove(fmt.Sprintf("h%02d", i))
	}
	w.ok(t, "end")
	w.save(t, w.pristineNew)
	r := w.run(t, crashTraceOn, "undo")
	if r.code != 0 {
		t.Fatalf("undo: exit %d\n%s", r.code, r.stderr)
	}
	steps := crashStepNames(r.steps)
	j := slices.Index(steps, "journal") + 1
	if j == 0 || j >= len(steps) {
		t.Fatalf("no apply steps after the journal: %q", steps)
	}
	w.reset(t, w.pristineNew)
	k := j + 1 // killed before the first remove or place
	r = w.run(t, []string{"TURNBACK_TEST_CRASH_AT=" + strconv.Itoa(k)}, "undo")
	if r.code != -1 {
		t.Fatalf("undo with TURNBACK_TEST_CRASH_AT=%d: exit %d, want killed", k, r.code)
	}
	// Edits the store has never seen, at paths the journal has yet to
	// rewrite (f05), remove (g03) and bring back (h02).
	edits := map[string][]byte{
		"f05": []byte("edited after the crash, never captured\n"),
		"g03": []byte("an agent's work written after the crash\n"),
		"h02": []byte("recreated by hand after the crash\n"),
	}
	for p, data := range edits {
		c.write(p, 0o644, data)
	}
	r = w.run(t, nil, "status")
	if r.code != 0 {
		t.Fatalf("status after the crash: exit %d\n%s", r.code, r.stderr)
	}
	dbs, err := filepath.Glob(filepath.Join(w.xdg, "turnback", "*", "db"))
	if err != nil || len(dbs) != 1 {
		t.Fatalf("store database: %v %v", dbs, err)
	}
	ctx := context.Background()
	b, err := cas.OpenBadger(ctx, dbs[0], cas.BadgerOptions{LockWait: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	store, err := cas.NewStore(b)
	if err != nil {
		b.Close()
		t.Fatal(err)
	}
	defer store.Close()
	if ok, err := store.HasContent(ctx, cas.Sum([]byte("new 5\n"))); err != nil || !ok {
		t.Fatalf("the store lookup does not find content captured by end (%v, %v)", ok, err)
	}
	for _, p := range slices.Sorted(maps.Keys(edits)) {
		data := edits[p]
		if onDisk, err := os.ReadFile(c.abs(p)); err == nil && bytes.Equal(onDisk, data) {
			continue
		}
		stored, err := store.HasContent(ctx, cas.Sum(data))
		if err != nil {
			t.Fatal(err)
		}
		if !stored {
			t.Errorf("%s: the edit made after the crash was destroyed by the recovery and is not in the store (lost)", p)
		}
	}
	if len(r.stdout+r.stderr) > 0 {
		t.Logf("status printed:\n%s%s", r.stdout, r.stderr)
	}
}
