package cli

// gc killed (SIGKILL) at many points of its run: the store stays whole,
// and every kept turn still undoes byte for byte.

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/turnback/turnback/internal/testtier"
	"github.com/turnback/turnback/manifest/treetest"
)

// gcApply makes the work tree go from state from to state to.
func (e *cliEnv) gcApply(from, to treetest.Tree) {
	e.t.Helper()
	for p, n := range to {
		if n.Kind != treetest.KindFile {
			continue
		}
		if old, ok := from[p]; !ok || old.Data != n.Data {
			e.write(p, n.Data)
		}
	}
	var gone []string
	for p := range from {
		if _, ok := to[p]; !ok {
			gone = append(gone, p)
		}
	}
	// Files before their directories.
	sort.Sort(sort.Reverse(sort.StringSlice(gone)))
	for _, p := range gone {
		e.remove(p)
	}
}

// wantTree fails the test unless the work tree holds exactly want's
// files (byte for byte) and directories; modes are not compared.
func (e *cliEnv) wantTree(what string, want treetest.Tree) {
	e.t.Helper()
	treetest.Equal(e.t, what, treetest.Tree(treetest.MustRead(e.t, e.dir, treetest.NoModes())), treetest.Tree(want))
}

// gcKillState is the work tree after turn i of the kill test (0: before
// the first): a big file rewritten every turn, a medium one rewritten
// every other turn, a counter, notes added every turn, every fourth of
// which is deleted two turns later (its directory with it), and 600
// small files of which each turn rewrites a quarter (many blobs for gc
// to sweep).
func gcKillState(i, big int) treetest.Tree {
	file := func(data []byte) treetest.Entry { return treetest.Entry{Kind: treetest.KindFile, Data: string(data)} }
	dir := treetest.Entry{Kind: treetest.KindDir}
	s := treetest.Tree{
		"README":      file([]byte("kill test\n")),
		"big.bin":     file(gcRandom(uint64(2000+i), big)),
		"mid.bin":     file(gcRandom(uint64(5000+i/2), 300<<10)),
		"counter.txt": file([]byte(fmt.Sprintf("%d\n", i))),
	}
	for f := range 600 {
		// File f was last rewritten at the latest turn <= i that is
		// congruent to f's quarter.
		last := i - ((i-f%4)%4+4)%4
		if last < 0 {
			last = 0
		}
		s[fmt.Sprintf("gen/d%d", f%6)] = dir
		s[fmt.Sprintf("gen/d%d/f%03d.dat", f%6, f)] = file(gcRandom(uint64(1_000_000*last+f), 512+f))
	}
	s["gen"] = dir
	for j := 1; j <= i; j++ {
		if j%4 == 0 && i >= j+2 {
			continue
		}
		s["notes"] = dir
		s[fmt.Sprintf("notes/g%d", j%3)] = dir
		s[fmt.Sprintf("notes/g%d/n%03d.txt", j%3, j)] = file([]byte(fmt.Sprintf("note %d\n", j)))
	}
	return s
}

// TestGCKilledAtManyPoints kills "gc --keep 3" (SIGKILL) after delays
// spread over its whole run, on copies of one store with many turns.
// After each kill, verify passes, the turns log lists all the turns (gc
// had not committed) or the newest three, and each of them undoes one by
// one to the expected tree, byte for byte; redo brings the newest state
// back, and a new gc completes. Two workers, each with its own work tree
// and store, share the kill points.
func TestGCKilledAtManyPoints(t *testing.T) {
	testtier.Slow(t)
	turns, big, kills := 10, 3<<20, 12
	if testing.Short() {
		turns, big, kills = 8, 2<<20, 6
	}
	// Each kill's delay is drawn within its own slice of the run: over
	// runs, every moment of gc.
	rng := rand.New(rand.NewPCG(crashSeed(t), 3))
	draws := make([]float64, kills)
	for k := range draws {
		draws[k] = rng.Float64()
	}
	const workers = 2
	var mu sync.Mutex
	phases := map[string]int{}
	var calib []time.Duration
	t.Run("workers", func(t *testing.T) {
		for w := range workers {
			t.Run(fmt.Sprint(w), func(t *testing.T) {
				t.Parallel()
				full := gcKillWorker(t, turns, big, func(full time.Duration, yield func(k int, delay time.Duration)) {
					for k := w; k < kills; k += workers {
						yield(k, gcKillDelay(k, kills, draws[k], full))
					}
				}, func(phase string) {
					mu.Lock()
					phases[phase]++
					mu.Unlock()
				})
				mu.Lock()
				calib = append(calib, full)
				mu.Unlock()
			})
		}
	})
	var names []string
	inside := 0
	for p, n := range phases {
		names = append(names, fmt.Sprintf("%s: %d", p, n))
		if p != "finished before the kill" && p != "the next command failed" {
			inside += n
		}
	}
	sort.Strings(names)
	t.Logf("uninterrupted gc %v; %d kills, %d inside gc: %s", calib, kills, inside, strings.Join(names, "; "))
	fmt.Printf("TestGCKilledAtManyPoints: uninterrupted gc %v; %d kills, %d inside gc: %s\n", calib, kills, inside, strings.Join(names, "; "))
	if !t.Failed() && inside < kills/2 {
		t.Errorf("only %d of %d kills landed inside gc", inside, kills)
	}
}

// gcKillDelay is the k-th of n kill delays for a gc that takes full: the
// first few while the process starts and opens the store (Badger creates
// its memtable file then), the rest from 0.1 to 1.05 x full, denser early
// on: open, mark, commit and sweep are short next to reclaim. u in [0,1)
// places the delay within the k-th slice.
func gcKillDelay(k, n int, u float64, full time.Duration) time.Duration {
	early := []time.Duration{1, 4, 7, 10, 14}
	if n <= 2*len(early) {
		early = early[:n/3]
	}
	if k < len(early) {
		return early[k] * time.Millisecond
	}
	x := (float64(k-len(early)) + u) / float64(n-len(early))
	return time.Duration(float64(full) * (0.1 + 0.95*x*x))
}

// gcKillWorker builds a history of turns, calibrates an uninterrupted gc
// and then kills gc at the points plan yields, checking the store after
// each kill. It returns the calibrated duration.
func gcKillWorker(t *testing.T, turns, big int, plan func(full time.Duration, yield func(k int, delay time.Duration)), count func(phase string)) time.Duration {
	e := newStoreEnv(t)
	state := func(i int) treetest.Tree { return gcKillState(i, big) }
	e.gcApply(treetest.Tree{}, state(0))
	start := time.Now()
	e.gcHistory(turns, func(i int) { e.gcApply(state(i-1), state(i)) })
	pristine := filepath.Join(e.base, "pristine")
	store := e.store
	if err := os.Rename(store, pristine); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d turns (%s file rewritten each) via %s in %v; store %s", turns, gcMiB(int64(big)), gcBuildVia(),
		time.Since(start).Round(time.Millisecond), gcMiB(treetest.DiskUsage(t, pristine)))

	reset := func() {
		if err := os.RemoveAll(store); err != nil {
			t.Fatal(err)
		}
		if err := treetest.Copy(pristine, store); err != nil {
			t.Fatal(err)
		}
		if err := os.RemoveAll(e.dir); err != nil {
			t.Fatal(err)
		}
		e.gcApply(treetest.Tree{}, state(turns))
	}

	// Calibrate: how long does an uninterrupted gc take (the shortest of
	// three runs), and what does it leave?
	var full time.Duration
	for i := range 3 {
		reset()
		start = time.Now()
		e.ok("gc", "--keep", "3")
		if d := time.Since(start); i == 0 || d < full {
			full = d
		}
	}
	final := treetest.DiskUsage(t, store)
	t.Logf("uninterrupted gc --keep 3: %v, du %s -> %s", full.Round(time.Millisecond), gcMiB(treetest.DiskUsage(t, pristine)), gcMiB(final))

	plan(full, func(k int, delay time.Duration) {
		reset()
		cmd := e.command("gc", "--keep", "3")
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(delay)
		_ = cmd.Process.Signal(syscall.SIGKILL)
		err := cmd.Wait()
		finished := err == nil
		if err != nil && !strings.Contains(err.Error(), "killed") {
			t.Fatalf("kill %d: gc failed on its own: %v\n%s", k, err, out.String())
		}
		// The next command must open the store. (It may fail once when
		// the kill left an empty memtable file: Badger's z.NewFile; see
		// TestGCStoreOpensAfterCrashMidOpen. Report it, then go on.)
		if r := e.run("log"); r.code != 0 {
			count("the next command failed")
			t.Errorf("kill %d after %v: the first command after the kill fails:\n%v", k, delay, r)
		}
		phase := gcKillPhase(e, finished, final)
		count(phase)
		t.Logf("kill %2d after %7v: %s", k, delay.Round(time.Millisecond), phase)

		e.verify()
		list := e.turns()
		if len(list) != turns && len(list) != 3 {
			t.Fatalf("kill %d (%s): log lists %d turns; want %d (gc not committed) or 3", k, phase, len(list), turns)
		}
		for j, d := range list {
			if want := fmt.Sprintf("turn %d", turns-j); d.Message != want || d.Open || d.Undone {
				t.Fatalf("kill %d (%s): log entry %d is %+v; want closed %q", k, phase, j, d, want)
			}
		}
		for j := 1; j <= len(list); j++ {
			r := e.ok("undo")
			e.wantTree(fmt.Sprintf("kill %d (%s): undo %d of %d\n%s", k, phase, j, len(list), r.stdout), state(turns-j))
		}
		if r := e.ok("undo"); !strings.Contains(r.stdout, "nothing to undo") {
			t.Fatalf("kill %d: one undo more than the kept turns: %v", k, r)
		}
		e.ok("redo", fmt.Sprint(len(list)))
		e.wantTree(fmt.Sprintf("kill %d (%s): redo %d", k, phase, len(list)), state(turns))
		e.ok("gc", "--keep", "3")
		e.verify()
	})
	return full
}

// gcKillPhase names where a killed gc stopped, from what the store looks
// like afterwards.
func gcKillPhase(e *cliEnv, finished bool, final int64) string {
	if finished {
		return "finished before the kill"
	}
	dry := e.gcJSON("--dry-run", "--keep", "3")
	switch {
	case dry.TurnsForgotten > 0:
		return "before the commit (open, mark)"
	case dry.BlobsRemoved > 0 || dry.ChunkListsRemoved > 0:
		return "after the commit, in the sweep"
	case treetest.DiskUsage(e.t, e.store) > final*5/4+(8<<20):
		return "after the sweep, in reclaim"
	}
	return "after reclaim, before exit"
}
