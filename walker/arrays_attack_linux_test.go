//go:build linux && (amd64 || arm64)

package walker

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/internal/testtier"
	"github.com/turnback/turnback/manifest"
	"golang.org/x/sys/unix"
)

// attackSizes are directory sizes around the arrays' capacity classes.
var attackSizes = []int{0, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 129, 255, 256, 257, 511, 512, 513}

// attackTree builds below dir directories of attackSizes files, a deep
// chain, symlinks, fifos, an ignored directory and hard links.
func attackTree(t *testing.T, dir string, rng *rand.Rand) {
	t.Helper()
	for i, n := range attackSizes {
		p := fmt.Sprintf("s%03d", i)
		mkdirAll(t, dir, p)
		for f := range n {
			writeAttack(t, dir, fmt.Sprintf("%s/f%04d", p, f), fmt.Sprintf("%s-%d-%d", p, f, rng.IntN(1000)))
		}
		if i%3 == 0 {
			mkdirAll(t, dir, p+"/sub/inner")
			writeAttack(t, dir, p+"/sub/inner/x", "x"+p)
		}
	}
	deep := "deep"
	for i := range 40 {
		deep = path.Join(deep, fmt.Sprintf("l%02d", i))
		mkdirAll(t, dir, deep)
		writeAttack(t, dir, deep+"/f", deep)
	}
	writeAttack(t, dir, ".gitignore", "ign/\n*.tmp\n")
	mkdirAll(t, dir, "ign/x")
	writeAttack(t, dir, "ign/x/f", "ignored")
	writeAttack(t, dir, "s001/a.tmp", "ignored tmp")
	if err := os.Symlink("s001/f0000", abs(dir, "s002/link")); err != nil {
		t.Fatal(err)
	}
	if err := unix.Mkfifo(abs(dir, "s003/fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(abs(dir, "s004/f0000"), abs(dir, "s005/hard")); err != nil {
		t.Fatal(err)
	}
}

func writeAttack(t *testing.T, dir, rel, data string) {
	t.Helper()
	if err := os.WriteFile(abs(dir, rel), []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// attackDirs lists the directories below dir (slash paths, "" the root),
// the ignored one left out.
func attackDirs(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		if rel == "." {
			rel = ""
		}
		if d.IsDir() {
			if rel == "ign" {
				return filepath.SkipDir
			}
			out = append(out, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func attackFiles(t *testing.T, dir, rel string) []string {
	t.Helper()
	ents, err := os.ReadDir(abs(dir, rel))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		if e.Type().IsRegular() && e.Name() != ".gitignore" {
			out = append(out, path.Join(rel, e.Name()))
		}
	}
	return out
}

// attackEdit makes one random edit below dir.
func attackEdit(t *testing.T, dir string, rng *rand.Rand, round int) {
	t.Helper()
	dirs := attackDirs(t, dir)
	d := dirs[rng.IntN(len(dirs))]
	files := attackFiles(t, dir, d)
	switch op := rng.IntN(8); {
	case op == 0 && len(files) > 0: // same size, new content
		f := files[rng.IntN(len(files))]
		old, err := os.ReadFile(abs(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		b := []byte(strings.Repeat("z", len(old)))
		if len(b) > 0 {
			b[0] = byte('a' + round%26)
		}
		writeAttack(t, dir, f, string(b))
	case op == 1: // grow the directory across a class
		for k := range 1 + rng.IntN(20) {
			writeAttack(t, dir, path.Join(d, fmt.Sprintf("n%d-%d", round, k)), fmt.Sprintf("new %d %d %s", round, k, d))
		}
	case op == 2 && len(files) > 0: // shrink it
		for _, f := range files[:1+rng.IntN(len(files))] {
			if err := os.Remove(abs(dir, f)); err != nil {
				t.Fatal(err)
			}
		}
	case op == 3 && len(files) > 0: // move a file to another directory
		f := files[rng.IntN(len(files))]
		to := dirs[rng.IntN(len(dirs))]
		if err := os.Rename(abs(dir, f), abs(dir, path.Join(to, path.Base(f)))); err != nil {
			t.Fatal(err)
		}
	case op == 4 && d != "": // swap two directories
		e := dirs[rng.IntN(len(dirs))]
		if e == "" || e == d || strings.HasPrefix(e, d+"/") || strings.HasPrefix(d, e+"/") {
			return
		}
		tmp := abs(dir, fmt.Sprintf("swap%d", round))
		if err := os.Rename(abs(dir, d), tmp); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(abs(dir, e), abs(dir, d)); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, abs(dir, e)); err != nil {
			t.Fatal(err)
		}
	case op == 5: // an empty directory, or a new one with files
		p := path.Join(d, fmt.Sprintf("m%d", round))
		mkdirAll(t, dir, p)
		for k := range rng.IntN(3) * 7 {
			writeAttack(t, dir, path.Join(p, fmt.Sprintf("g%d", k)), p)
		}
	case op == 6 && d != "" && !strings.HasPrefix(d, "deep") && len(d) > 4: // remove a directory
		removeAll(t, dir, d)
	default: // a file of the same name and size in every directory
		for _, e := range dirs[:min(len(dirs), 5)] {
			writeAttack(t, dir, path.Join(e, "same"), fmt.Sprintf("%03d", round))
		}
	}
}

// TestArraysRandomEdits: captures with the stat cache in one process
// (the arrays' pools warm), after random edits, each settled or not,
// give the trees of a full walk, and of a walk without the cache with the
// large-directory rule on.
func TestArraysRandomEdits(t *testing.T) {
	// The slow tier runs two seeds of 20 rounds, but not under the race
	// detector, where each takes ten times as long. The short version
	// runs one seed of 6 rounds: its 20 edits make each kind of edit,
	// and it writes one tree of 3,000 files, not two.
	seeds, rounds := 2, 20
	if testtier.Short() || testtier.UnderRace() {
		seeds, rounds = 1, 6
	}
	for seed := range seeds {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			t.Parallel()
			arraysRandomEdits(t, uint64(seed), rounds)
		})
	}
}

func arraysRandomEdits(t *testing.T, seed uint64, rounds int) {
	rng := rand.New(rand.NewPCG(seed, 51))
	dir := t.TempDir()
	attackTree(t, dir, rng)
	ageTree(t, dir)
	time.Sleep(settle)
	s := newStore(t)
	cache := NewStatCache(s.Backend())
	opts := Options{Cache: cache, Workers: 1 + rng.IntN(8), LargeDirFiles: 300}
	r := snap(t, dir, s, opts)
	for round := range rounds {
		for range 1 + rng.IntN(6) {
			attackEdit(t, dir, rng, round)
		}
		if rng.IntN(2) == 0 {
			time.Sleep(settle)
		}
		opts.Previous = r.Root
		opts.Workers = 1 + rng.IntN(8)
		got := snap(t, dir, s, opts)
		what := fmt.Sprintf("seed %d round %d", seed, round)
		plain := opts
		plain.Cache = nil
		want := snap(t, dir, s, plain)
		if got.Root != want.Root {
			sameSnapshot(t, what+" (cache vs none)", flatten(t, s, got.Root), flatten(t, s, want.Root))
			t.Fatalf("%s: root %s, without the cache %s", what, got.Root.Short(), want.Root.Short())
		}
		full := fullWalk(t, dir)
		all := flatten(t, s, got.Root)
		for p, e := range all {
			if e.Uncaptured && e.Kind == manifest.KindDir {
				for q := range full {
					if strings.HasPrefix(q, p+"/") {
						delete(full, q)
					}
				}
				if f, ok := full[p]; ok {
					f.Uncaptured, f.Hash, f.Files = e.Uncaptured, e.Hash, e.Files
					full[p] = f
				}
			}
		}
		// Directories compare by what they hold, as their hashes
		// differ above one the large-directory rule left out.
		for _, m := range []map[string]manifest.Entry{all, full} {
			for p, e := range m {
				if e.Kind == manifest.KindDir && !e.Uncaptured {
					e.Hash = cas.Hash{}
					m[p] = e
				}
			}
		}
		sameSnapshot(t, what, all, full)
		if t.Failed() {
			t.FailNow()
		}
		r = got
	}
}

// TestArraysCancelAndChurn: captures cancelled at random points, and
// captures while directories vanish and reappear, leave the pools and
// the stat cache so that the next quiet capture is a full walk's.
func TestArraysCancelAndChurn(t *testing.T) {
	rounds := 10
	if testtier.Short() || testtier.UnderRace() {
		rounds = 4
	}
	rng := rand.New(rand.NewPCG(7, 51))
	dir := t.TempDir()
	attackTree(t, dir, rng)
	ageTree(t, dir)
	time.Sleep(settle)
	s := newStore(t)
	cache := NewStatCache(s.Backend())
	var r *Result
	var mu sync.Mutex
	var calls, at int
	var cancel context.CancelFunc
	testHookLstat = func(string) {
		mu.Lock()
		calls++
		if calls == at && cancel != nil {
			cancel()
		}
		mu.Unlock()
	}
	t.Cleanup(func() { testHookLstat = nil })
	for round := range rounds {
		for range 3 {
			mu.Lock()
			var ctx context.Context
			ctx, cancel = context.WithCancel(context.Background())
			calls, at = 0, 1+rng.IntN(3000)
			mu.Unlock()
			opts := Options{Cache: cache, Workers: 1 + rng.IntN(8), LargeDirFiles: 300}
			if r != nil {
				opts.Previous = r.Root
			}
			_, _ = Capture(ctx, openRoot(t, dir), s, opts)
			cancel()
		}
		// Churn: directories vanish and come back while captured.
		stop := make(chan struct{})
		done := make(chan struct{})
		dirs := attackDirs(t, dir)
		go func() {
			defer close(done)
			for k := 0; ; k++ {
				select {
				case <-stop:
					return
				default:
				}
				d := dirs[(k*7+round)%len(dirs)]
				if d == "" {
					continue
				}
				tmp := abs(dir, "churn")
				if os.Rename(abs(dir, d), tmp) == nil {
					time.Sleep(time.Millisecond)
					_ = os.Rename(tmp, abs(dir, d))
				}
			}
		}()
		opts := Options{Cache: cache, Workers: 1 + rng.IntN(8), LargeDirFiles: 300}
		if r != nil {
			opts.Previous = r.Root
		}
		for range 3 {
			_, _ = Capture(context.Background(), openRoot(t, dir), s, opts)
		}
		close(stop)
		<-done
		for range 3 {
			attackEdit(t, dir, rng, round)
		}
		time.Sleep(settle)
		mu.Lock()
		cancel = nil
		mu.Unlock()
		got := snap(t, dir, s, opts)
		plain := opts
		plain.Cache = nil
		want := snap(t, dir, s, plain)
		if got.Root != want.Root {
			sameSnapshot(t, fmt.Sprintf("round %d", round), flatten(t, s, got.Root), flatten(t, s, want.Root))
			t.Fatalf("round %d: root %s, without the cache %s", round, got.Root.Short(), want.Root.Short())
		}
		r = got
	}
}

// TestArraysHugeDirs: directories past maxArray (files, and
// subdirectories past the tasks' pooled classes) captured with the
// cache, changed, and captured again give a full walk's trees.
func TestArraysHugeDirs(t *testing.T) {
	testtier.Slow(t)
	testtier.NotUnderRace(t)
	dir := t.TempDir()
	for _, d := range []struct {
		name  string
		files int
	}{{"big", 20000}, {"edge", 16385}, {"small", 3}} {
		mkdirAll(t, dir, d.name)
		for f := range d.files {
			writeAttack(t, dir, fmt.Sprintf("%s/f%05d", d.name, f), fmt.Sprintf("%s %d", d.name, f))
		}
	}
	for k := range 5000 {
		p := fmt.Sprintf("many/d%04d", k)
		mkdirAll(t, dir, p)
		if k%3 == 0 {
			writeAttack(t, dir, p+"/f", p)
		}
	}
	ageTree(t, dir)
	time.Sleep(settle)
	s := newStore(t)
	cache := NewStatCache(s.Backend())
	r := snap(t, dir, s, Options{Cache: cache})
	sameSnapshot(t, "first", flatten(t, s, r.Root), fullWalk(t, dir))
	rng := rand.New(rand.NewPCG(3, 51))
	for round := range 2 {
		for range 5 {
			switch rng.IntN(3) {
			case 0:
				writeAttack(t, dir, fmt.Sprintf("big/f%05d", rng.IntN(20000)), fmt.Sprintf("BIG %d", round))
			case 1:
				writeAttack(t, dir, fmt.Sprintf("many/d%04d/g%d", rng.IntN(5000), round), "new")
			default:
				writeAttack(t, dir, fmt.Sprintf("edge/n%d", round), "edge")
			}
		}
		if round%2 == 0 {
			time.Sleep(settle)
		}
		r = snap(t, dir, s, Options{Cache: cache, Previous: r.Root, Workers: 1 + rng.IntN(8)})
		sameSnapshot(t, fmt.Sprintf("round %d", round), flatten(t, s, r.Root), fullWalk(t, dir))
	}
}
