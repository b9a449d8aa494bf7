//go:build linux

package turnback

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/turnback/turnback/internal/handoff"
	"github.com/turnback/turnback/internal/testtier"
)

// TestHandoffRandom: the handoff of a command's capture to the daemon it
// started early (handoff.go), under random edits made all along: while
// the command captures, while the daemon's watcher is built (before,
// during or after the capture's end), and after. The daemon's Watch
// takes the handoff when it may, and every snap after it must equal a
// full walk of the tree as it was (the editor pauses while a snap and
// its full walk run). TURNBACK_HANDOFF_SEED reruns one seed.
func TestHandoffRandom(t *testing.T) {
	testtier.Slow(t)
	seeds := 12
	if testing.Short() {
		seeds = 4
	}
	base := uint64(time.Now().UnixNano())
	if s := os.Getenv("TURNBACK_HANDOFF_SEED"); s != "" {
		n, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		base, seeds = n, 1
	}
	// A seed uses the handoff only when the daemon's watcher is built
	// before the command's capture ends: on a loaded machine none of the
	// first seeds may. More seeds run then, up to three times as many,
	// until one does.
	used, ran := 0, 0
	for i := 0; i < seeds || used == 0 && seeds > 1 && i < 3*seeds; i++ {
		seed := base + uint64(i)
		ran++
		t.Run(fmt.Sprint("seed=", seed), func(t *testing.T) {
			t.Logf("rerun with TURNBACK_HANDOFF_SEED=%d", seed)
			if runHandoff(t, seed) {
				used++
			}
		})
	}
	t.Logf("%d of %d seeds used the handoff", used, ran)
	if used == 0 && seeds > 1 {
		t.Error("no seed used the handoff")
	}
}

// runHandoff runs one seed and says whether the daemon used the handoff.
func runHandoff(t *testing.T, seed uint64) bool {
	ctx := t.Context()
	rng := rand.New(rand.NewPCG(seed, seed^0x2545f4914f6cdd1d))
	wt := t.TempDir()
	ed := &startEditor{t: t, rng: rand.New(rand.NewPCG(seed^0x1234, seed)), dir: wt, done: make(chan struct{}),
		noIgnore: rng.IntN(4) > 0}
	ed.seedTree(rng)
	store := t.TempDir()
	// The large-new-directory rule off: a directory the editor moves
	// may hold 200 files, which a capture with a previous snapshot
	// leaves uncaptured (and keeps so), where the full walk compared
	// with has none and captures it (TestHandoffLargeDirAgainstOwnCapture
	// covers the rule).
	opts := Options{Store: store, LargeDirFiles: -1}
	if rng.IntN(2) == 0 {
		snapAndClose(t, wt, opts, "before") // a snapshot and a stat cache already
	}
	ed.wg.Add(1)
	go ed.run()
	stopped := false
	stop := func() {
		if !stopped {
			stopped = true
			close(ed.done)
			ed.wg.Wait()
		}
	}
	defer stop()

	d, ph, statErr := handoffAndWatch(t, rng, seed, wt, store, opts)
	defer d.Close()
	t.Logf("handoff written: %v; phases: %s", statErr == nil, ph)
	if ph.Handoff && statErr != nil {
		t.Fatal("the handoff was used, but the command wrote none")
	}
	if _, err := os.Stat(filepath.Join(store, handoff.Name)); err == nil {
		t.Error("the handoff file is still there after Watch")
	}
	view, err := d.View(Options{Session: "snaps", LargeDirFiles: -1})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 + rng.IntN(5) {
		if rng.IntN(2) == 0 {
			time.Sleep(time.Duration(rng.IntN(3000)) * time.Microsecond)
		}
		ed.mu.Lock()
		res, err := view.Snap(ctx, fmt.Sprint("after ", i))
		if err != nil {
			ed.mu.Unlock()
			t.Fatalf("snap %d: %v", i, err)
		}
		want := fullWalkOf(t, wt)
		log := strings.Join(ed.log, "\n  ")
		ed.mu.Unlock()
		if res.Snapshot != want.Root || res.Files != want.Stats.Files || res.Bytes != want.Stats.Bytes ||
			res.Stats.Dirs != want.Stats.Dirs || res.Stats.Symlinks != want.Stats.Symlinks {
			t.Fatalf("snap %d (watch %+v, handoff %v) = %s (%d files, %d bytes, %d dirs, %d symlinks), full walk %s (%+v)\nlast edits:\n  %s",
				i, res.Watch, ph.Handoff, res.Snapshot.Short(), res.Files, res.Bytes, res.Stats.Dirs, res.Stats.Symlinks,
				want.Root.Short(), want.Stats, log)
		}
		if i == 0 && ph.Handoff && (res.Watch == nil || !res.Watch.Incremental) && !strings.Contains(res.Watch.FullWalk, "ignore file") {
			t.Errorf("first snap after a handoff: %+v; want incremental", res.Watch)
		}
	}
	return ph.Handoff
}

// handoffAndWatch runs the command's capture with the handoff armed
// while a watcher is built after a random delay (the capture slowed at
// random), then opens the daemon's Repo and has it take the watcher
// over. It returns the daemon's Repo, to close, its phases, and
// whether the command's handoff file was there after the capture.
func handoffAndWatch(t *testing.T, rng *rand.Rand, seed uint64, wt, store string, opts Options) (*Repo, WatchPhases, error) {
	t.Helper()
	ctx := t.Context()
	// The command: it captures while the daemon's watcher is built.
	cli, err := Open(ctx, wt, opts)
	if err != nil {
		t.Fatal(err)
	}
	h := cli.armHandoff()
	h.Started(os.Getpid()) // the "daemon" is this process
	if rng.IntN(3) > 0 {
		// Slow the capture down so that the build ends during it.
		max := 50 + rng.IntN(400)
		// Its own generator: the capture's goroutines call Pace while
		// this one goes on drawing from rng.
		var mu sync.Mutex
		pace := rand.New(rand.NewPCG(seed, uint64(max)))
		h.Pace = func(string) {
			mu.Lock()
			d := time.Duration(pace.IntN(max)) * time.Microsecond
			mu.Unlock()
			time.Sleep(d)
		}
	}
	built := make(chan *Watcher, 1)
	delay := time.Duration(rng.IntN(4000)) * time.Microsecond
	go func() {
		time.Sleep(delay)
		w, err := StartWatcher(ctx, wt, store, WatchOptions{})
		if err != nil {
			t.Error(err)
			built <- nil
			return
		}
		h.Built()
		built <- w
	}()
	commandSnap(t, cli)
	_, statErr := os.Stat(filepath.Join(store, handoff.Name))
	w := <-built
	if w == nil {
		t.FailNow()
	}

	// The daemon: it opens the store and takes the watcher over.
	d, err := Open(ctx, wt, opts)
	if err != nil {
		w.Close()
		t.Fatal(err)
	}
	var ph WatchPhases
	if err := d.Watch(ctx, WatchOptions{Watcher: w, Phases: &ph}); err != nil {
		d.Close()
		t.Fatal(err)
	}
	return d, ph, statErr
}
