package turnback

import (
	"context"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/internal/testtier"
	"github.com/turnback/turnback/walker"
)

// startGates holds, per work tree, what Watch's steps (watchStep) wait
// for: a test registers a gate and Watch, at that step, sends on
// reached and waits until release is closed.
var startGates sync.Map // work tree -> map[string]*startGate

type startGate struct {
	reached chan struct{}
	release chan struct{}
	once    sync.Once // a gate holds the first time only
}

func init() {
	watchStep = func(workTree, step string) {
		gates, ok := startGates.Load(workTree)
		if !ok {
			return
		}
		if g := gates.(map[string]*startGate)[step]; g != nil {
			g.once.Do(func() {
				close(g.reached)
				<-g.release
			})
		}
	}
}

// TestWatchStartupRandom: random edits are made all through Watch's
// start-up (before the watcher's build, during it, between the build
// and Watch's first capture, during that capture, and after), and other
// views' snaps arrive in every one of those windows; each snap must
// equal a full walk of the tree as it was (the editor pauses while a
// snap and its full walk run). Snaps before the watcher is built are
// full walks that must never become the base of an incremental one;
// after Watch returns they are incremental. TURNBACK_START_SEED reruns
// one seed.
func TestWatchStartupRandom(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("written for inotify")
	}
	seeds := 8
	if testtier.Short() {
		seeds = 2
	}
	base := uint64(time.Now().UnixNano())
	if s := os.Getenv("TURNBACK_START_SEED"); s != "" {
		n, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		base, seeds = n, 1
	}
	var early, incremental int
	for i := range seeds {
		seed := base + uint64(i)
		t.Run(fmt.Sprint("seed=", seed), func(t *testing.T) {
			t.Logf("rerun with TURNBACK_START_SEED=%d", seed)
			e, inc := runStartup(t, seed)
			early += e
			incremental += inc
		})
	}
	t.Logf("%d snaps while the watcher was starting, %d incremental after", early, incremental)
}

// startEditor makes random edits in a work tree, one at a time under
// mu, until stop is called.
type startEditor struct {
	t    *testing.T
	rng  *rand.Rand
	dir  string
	mu   sync.Mutex
	seq  int
	log  []string
	done chan struct{}
	// noIgnore: no edit of an ignore file (each makes the watcher doubt)
	noIgnore bool
	wg       sync.WaitGroup
}

func (e *startEditor) run() {
	defer e.wg.Done()
	for {
		select {
		case <-e.done:
			return
		default:
		}
		e.mu.Lock()
		e.edit()
		e.mu.Unlock()
		if e.rng.IntN(4) == 0 {
			time.Sleep(time.Duration(e.rng.IntN(300)) * time.Microsecond)
		} else {
			runtime.Gosched()
		}
	}
}

// dirs lists the directories of the tree (slash paths, "" the root).
func (e *startEditor) dirs() []string {
	out := []string{""}
	_ = filepath.WalkDir(e.dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() && p != e.dir {
			rel, _ := filepath.Rel(e.dir, p)
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	return out
}

func (e *startEditor) files() []string {
	var out []string
	_ = filepath.WalkDir(e.dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(e.dir, p)
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	return out
}

func (e *startEditor) abs(rel string) string { return filepath.Join(e.dir, filepath.FromSlash(rel)) }

func (e *startEditor) pick(list []string) string { return list[e.rng.IntN(len(list))] }

// edit makes one random change (errors, say a path a rename took
// away, are simply no change).
func (e *startEditor) edit() {
	e.seq++
	name := fmt.Sprintf("n%d", e.seq)
	var op string
	switch k := e.rng.IntN(100); {
	case k < 25: // new file
		d := e.pick(e.dirs())
		op = "create " + path.Join(d, name)
		_ = os.WriteFile(e.abs(path.Join(d, name)), []byte(op), 0o644)
	case k < 50: // edit a file, sometimes to the same size
		if f := e.files(); len(f) > 0 {
			p := e.pick(f)
			data := fmt.Sprintf("edit %d", e.seq)
			if e.rng.IntN(2) == 0 {
				if old, err := os.ReadFile(e.abs(p)); err == nil && len(old) > 0 {
					data = strings.Repeat(string(rune('a'+e.seq%26)), len(old))
				}
			}
			op = "write " + p
			_ = os.WriteFile(e.abs(p), []byte(data), 0o644)
		}
	case k < 60: // remove a file
		if f := e.files(); len(f) > 0 {
			p := e.pick(f)
			op = "rm " + p
			_ = os.Remove(e.abs(p))
		}
	case k < 72: // mkdir -p with a file or two inside
		d := path.Join(e.pick(e.dirs()), name, "sub")
		if e.rng.IntN(2) == 0 {
			d = path.Dir(d)
		}
		op = "mkdir -p " + d
		_ = os.MkdirAll(e.abs(d), 0o755)
		for i := range e.rng.IntN(3) {
			_ = os.WriteFile(e.abs(path.Join(d, fmt.Sprint("f", i))), []byte(d), 0o644)
		}
	case k < 80: // rm -r a directory
		if d := e.dirs(); len(d) > 1 {
			p := d[1+e.rng.IntN(len(d)-1)]
			op = "rm -r " + p
			_ = os.RemoveAll(e.abs(p))
		}
	case k < 90: // rename a file or a directory somewhere else
		var src string
		if e.rng.IntN(2) == 0 {
			if f := e.files(); len(f) > 0 {
				src = e.pick(f)
			}
		} else if d := e.dirs(); len(d) > 1 {
			src = d[1+e.rng.IntN(len(d)-1)]
		}
		if src != "" {
			dst := path.Join(e.pick(e.dirs()), name)
			op = "mv " + src + " " + dst
			_ = os.Rename(e.abs(src), e.abs(dst))
		}
	case k < 96: // chmod
		if f := e.files(); len(f) > 0 {
			p := e.pick(f)
			mode := fs.FileMode(0o644)
			if e.rng.IntN(2) == 0 {
				mode = 0o755
			}
			op = "chmod " + p
			_ = os.Chmod(e.abs(p), mode)
		}
	case k < 98: // symlink
		d := e.pick(e.dirs())
		op = "ln -s " + path.Join(d, name)
		_ = os.Symlink("target-"+name, e.abs(path.Join(d, name)))
	case e.noIgnore:
		d := e.pick(e.dirs())
		op = "create " + path.Join(d, name)
		_ = os.WriteFile(e.abs(path.Join(d, name)), []byte(op), 0o644)
	default: // an ignore file: the watcher doubts
		d := e.pick(e.dirs())
		op = "ignore in " + d
		_ = os.WriteFile(e.abs(path.Join(d, ".gitignore")), []byte(fmt.Sprintf("*.tmp%d\n", e.seq)), 0o644)
	}
	if op != "" {
		e.log = append(e.log, op)
		if len(e.log) > 40 {
			e.log = e.log[1:]
		}
	}
}

// seedTree makes the tree the random start-up tests begin with, big
// enough that the watcher's build and a first capture take a while: 60
// to 200 directories of 0 to 5 files, drawn from rng.
func (e *startEditor) seedTree(rng *rand.Rand) {
	for range 60 + rng.IntN(140) {
		e.seq++
		d := path.Join(e.pick(e.dirs()), fmt.Sprintf("d%d", e.seq))
		if err := os.MkdirAll(e.abs(d), 0o755); err != nil {
			e.t.Fatal(err)
		}
		for i := range rng.IntN(6) {
			if err := os.WriteFile(e.abs(path.Join(d, fmt.Sprint("f", i))), []byte(d), 0o644); err != nil {
				e.t.Fatal(err)
			}
		}
	}
}

// runStartup runs one seed; it returns how many snaps were made before
// the watcher was built and how many were incremental.
func runStartup(t *testing.T, seed uint64) (early, incremental int) {
	ctx := t.Context()
	rng := rand.New(rand.NewPCG(seed, seed^0x5851f42d4c957f2d))
	wt := t.TempDir()
	ed := &startEditor{t: t, rng: rand.New(rand.NewPCG(seed^0xabcdef, seed)), dir: wt, done: make(chan struct{})}
	ed.seedTree(rng)
	store := t.TempDir()
	r, err := Open(ctx, wt, Options{Store: store})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if rng.IntN(2) == 0 {
		// A warm stat cache, as after the snap that starts a daemon.
		if _, err := r.Snap(ctx, "cold"); err != nil {
			t.Fatal(err)
		}
	}
	// Gates on some of Watch's steps: snaps are made while it waits there.
	gates := map[string]*startGate{}
	for _, step := range []string{"build", "built"} {
		if rng.IntN(3) > 0 {
			gates[step] = &startGate{reached: make(chan struct{}), release: make(chan struct{})}
		}
	}
	startGates.Store(wt, gates)
	defer startGates.Delete(wt)
	ed.wg.Add(1)
	go ed.run()
	defer func() {
		close(ed.done)
		ed.wg.Wait()
	}()
	view, err := r.View(Options{Session: "snaps"})
	if err != nil {
		t.Fatal(err)
	}
	// Prebuilt: the watcher is built first, without the store, as a
	// daemon started early does (StartWatcher), while the edits go on;
	// Watch then takes it over.
	prebuilt := rng.IntN(2) == 0
	o := WatchOptions{}
	if prebuilt {
		w, err := StartWatcher(ctx, wt, store, WatchOptions{})
		if err != nil {
			t.Fatal(err)
		}
		o.Watcher = w
	}
	watched := make(chan error, 1)
	go func() { watched <- r.Watch(ctx, o) }()

	n := 0
	snap := func(when string) *WatchInfo {
		t.Helper()
		ed.mu.Lock()
		defer ed.mu.Unlock()
		n++
		res, err := view.Snap(ctx, when)
		if err != nil {
			t.Fatalf("snap %d (%s): %v", n, when, err)
		}
		// The tree and the counts (those of reused directories come
		// from the totals a full capture leaves).
		if want := fullWalkOf(t, wt); res.Snapshot != want.Root || res.Files != want.Stats.Files || res.Bytes != want.Stats.Bytes ||
			res.Stats.Dirs != want.Stats.Dirs || res.Stats.Symlinks != want.Stats.Symlinks {
			t.Fatalf("snap %d (%s, watch %+v) = %s (%d files, %d bytes, %d dirs, %d symlinks), full walk %s (%+v)\nlast edits:\n  %s",
				n, when, res.Watch, res.Snapshot.Short(), res.Files, res.Bytes, res.Stats.Dirs, res.Stats.Symlinks,
				want.Root.Short(), want.Stats, strings.Join(ed.log, "\n  "))
		}
		if res.Watch == nil {
			if when != "during start-up" {
				t.Fatalf("snap %d (%s): no watch info", n, when)
			}
			return &WatchInfo{} // before Watch began
		}
		if res.Watch.FullWalk == watchStarting {
			if prebuilt {
				t.Fatalf("snap %d (%s): a full walk as if the watcher were starting, but it was built first", n, when)
			}
			early++
		}
		if res.Watch.Incremental {
			incremental++
		}
		return res.Watch
	}
	for _, step := range []string{"build", "built"} {
		g := gates[step]
		if g == nil {
			continue
		}
		<-g.reached
		for range 1 + rng.IntN(3) {
			// With a prebuilt watcher every capture may use it (each is
			// checked against a full walk all the same).
			if info := snap("at " + step); !prebuilt && (info.Incremental || info.FullWalk != watchStarting) {
				t.Fatalf("snap while Watch waits at %s: %+v; want a full walk, the watcher starting", step, *info)
			}
		}
		close(g.release)
	}
	// Snaps while Watch makes its first capture (or right after it),
	// then after Watch returned.
	for range rng.IntN(4) {
		snap("during start-up")
	}
	if err := <-watched; err != nil {
		t.Fatal(err)
	}
	for i := range 4 + rng.IntN(6) {
		info := snap("after Watch")
		if i == 0 && !info.Incremental && !strings.Contains(info.FullWalk, "ignore file") {
			t.Errorf("first snap after Watch returned: %+v; want incremental", *info)
		}
	}
	return early, incremental
}

// fullWalkOf captures dir from scratch into a memory store, as a
// capture without a watcher or a stat cache reads it.
func fullWalkOf(t *testing.T, dir string) *walker.Result {
	t.Helper()
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	s, err := cas.NewStore(cas.NewMemory())
	if err != nil {
		t.Fatal(err)
	}
	res, err := walker.Capture(context.Background(), root, s, walker.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestWatchBuildYields: once it has run freeBuild, the watcher's first
// build waits while an operation of another view holds the store (here
// an undo stopped in its restore), and goes on once it is done; a build
// within freeBuild does not wait: it is done while the undo is still
// stopped. Either way Watch returns ready once the undo ends, and the
// next snap is incremental.
func TestWatchBuildYields(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("written for inotify")
	}
	for _, tc := range []struct {
		name      string
		free      time.Duration
		gate      string // reached while the undo holds the store
		wantYield bool
	}{
		{"yields", 0, "yield", true},
		{"short build goes on", time.Hour, "built", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func(f time.Duration) { freeBuild = f }(freeBuild)
			freeBuild = tc.free
			ctx := t.Context()
			wt := t.TempDir()
			for i := range 20 {
				if err := os.MkdirAll(filepath.Join(wt, fmt.Sprint("d", i)), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.WriteFile(filepath.Join(wt, "f"), []byte("one\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			r, err := Open(ctx, wt, Options{Store: t.TempDir()})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			if _, err := r.Snap(ctx, ""); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(wt, "f"), []byte("two\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			if _, err := r.End(ctx); err != nil {
				t.Fatal(err)
			}
			gate := &startGate{reached: make(chan struct{}), release: make(chan struct{})}
			during := &startGate{reached: make(chan struct{}), release: make(chan struct{})}
			startGates.Store(wt, map[string]*startGate{"build": gate, tc.gate: during})
			defer startGates.Delete(wt)
			var ph WatchPhases
			watched := make(chan error, 1)
			go func() { watched <- r.Watch(ctx, WatchOptions{Phases: &ph}) }()
			<-gate.reached
			slow, _ := r.View(Options{})
			entered, release := make(chan struct{}), make(chan struct{})
			var once sync.Once
			slow.SetRestoreHook(func(string) error {
				once.Do(func() { close(entered); <-release })
				return nil
			})
			undone := make(chan error, 1)
			go func() { _, err := slow.Undo(ctx, 1, UndoOptions{}); undone <- err }()
			<-entered
			close(gate.release) // the build starts while the undo holds the store
			<-during.reached    // and waits for it, or ends
			close(during.release)
			close(release)
			if err := <-undone; err != nil {
				t.Fatal(err)
			}
			if err := <-watched; err != nil {
				t.Fatal(err)
			}
			if got := ph.Yielded > 0; got != tc.wantYield {
				t.Errorf("phases %+v: the build waited for the undo: %v, want %v", ph, got, tc.wantYield)
			}
			res, err := r.Snap(ctx, "after")
			if err != nil {
				t.Fatal(err)
			}
			if res.Watch == nil || !res.Watch.Incremental {
				t.Errorf("snap after Watch: %+v; want incremental", res.Watch)
			}
		})
	}
}
