//go:build linux

package watch

import (
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/internal/testtier"
	"github.com/turnback/turnback/manifest"
	"github.com/turnback/turnback/walker"
)

// TestRandomOps is the watcher's end-to-end check: thousands of random
// operations on a work tree, and after each small batch (once the
// watcher has handled their events: Sync, so the test is ordered by
// events, not by time) an incremental capture from the watcher's changes
// must equal a full capture without a stat cache, every time.
// TURNBACK_WATCH_SEED reruns one seed.
func TestRandomOps(t *testing.T) {
	ops, budget := 4000, 15*time.Second
	if testtier.Short() {
		ops, budget = 400, 4*time.Second
	}
	seeds := []uint64{1, uint64(time.Now().UnixNano())}
	if s := os.Getenv("TURNBACK_WATCH_SEED"); s != "" {
		n, err := strconv.ParseUint(s, 10, 64)
		must(t, err)
		seeds = []uint64{n}
	}
	for _, seed := range seeds {
		t.Run(fmt.Sprint("seed=", seed), func(t *testing.T) {
			t.Logf("seed %d (rerun with TURNBACK_WATCH_SEED=%d)", seed, seed)
			runRandom(t, seed, ops, budget)
		})
	}
}

type fuzzer struct {
	t            *testing.T
	rng          *rand.Rand
	dir, outside string
	log          []string // recent operations
	seq          int
}

// watchAndCapture starts a watcher on f.dir and a capturer of it, takes
// what the watcher saw so far and captures everything once; it returns
// them and that capture's root. A small large-directory limit and size
// limit bring uncaptured directories and files into play.
func (f *fuzzer) watchAndCapture() (*Watcher, *capturer, cas.Hash) {
	w := startWatcher(f.t, f.dir, Options{}, nil)
	c := newCapturer(f.t, f.dir, walker.Options{LargeDirFiles: 8, SizeLimit: 3000})
	w.Take()
	return w, c, c.full(cas0).Root
}

func runRandom(t *testing.T, seed uint64, maxOps int, budget time.Duration) {
	f := &fuzzer{t: t, rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), dir: t.TempDir(), outside: t.TempDir()}
	put(t, f.dir, ".gitignore", "*.log\n/gen/\n")
	put(t, f.dir, "node_modules/pkg/index.js", "x")
	for range 30 {
		f.mkdirP()
	}
	w, c, base := f.watchAndCapture()
	start := time.Now()
	var checks, fulls, reused, read int64
	done := 0
	for done < maxOps && time.Since(start) < budget {
		n := 1 + f.rng.IntN(3)
		if f.rng.IntN(20) == 0 {
			n = 10 + f.rng.IntN(20) // a burst, coalesced
		}
		for range n {
			f.op()
		}
		done += n
		ch := settled(t, w)
		inc := c.incremental(base, ch)
		full := c.full(base)
		f.note("-- check %d: Full=%v dirs %d", checks, ch.Full, len(ch.Dirs))
		checks++
		if ch.Full {
			fulls++
		}
		reused += inc.Stats.DirsReused
		read += inc.Stats.DirsRead
		if inc.Root != full.Root {
			t.Fatalf("after %d operations the incremental capture differs from a full one (full → incremental):\n%s\nchanges: Full=%v %q Dirs %v\nlast operations:\n%s",
				done, c.diff(full.Root, inc.Root), ch.Full, ch.Reason, dirList(ch.Dirs), strings.Join(f.log, "\n"))
		}
		if d := sameStats(inc.Stats, full.Stats); d != "" {
			t.Fatalf("after %d operations: stats: %s\nlast operations:\n%s", done, d, strings.Join(f.log, "\n"))
		}
		base = inc.Root
	}
	t.Logf("%d operations, %d checks (%d full), %d directories reused, %d read, in %v",
		done, checks, fulls, reused, read, time.Since(start).Round(time.Millisecond))
	if fulls*2 > checks {
		t.Errorf("%d of %d checks were full walks", fulls, checks)
	}
	if reused < read {
		t.Errorf("incremental captures reused %d directories and read %d", reused, read)
	}
}

func (f *fuzzer) note(format string, args ...any) {
	f.log = append(f.log, fmt.Sprintf(format, args...))
	if len(f.log) > 40 {
		f.log = f.log[1:]
	}
}

func (f *fuzzer) p(rel string) string { return filepath.Join(f.dir, filepath.FromSlash(rel)) }

// tree lists the work tree: directories ("" the root) and the other
// entries, ignored ones included.
func (f *fuzzer) tree() (dirs, others []string) {
	dirs = []string{""}
	filepath.WalkDir(f.dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == f.dir {
			return nil
		}
		rel, _ := filepath.Rel(f.dir, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			dirs = append(dirs, rel)
		} else if d.Name() != ".gitignore" {
			others = append(others, rel)
		}
		return nil
	})
	return dirs, others
}

func pick[T any](rng *rand.Rand, s []T) T { return s[rng.IntN(len(s))] }

func (f *fuzzer) name() string {
	f.seq++
	if f.rng.IntN(3) == 0 {
		return pick(f.rng, []string{"a", "b", "c", "src", "x"}) // collide sometimes
	}
	return fmt.Sprintf("n%d", f.seq)
}

func (f *fuzzer) fileName() string {
	return pick(f.rng, []string{"f", "g", "h", "main", "data"}) + strconv.Itoa(f.rng.IntN(6)) +
		pick(f.rng, []string{".txt", ".go", ".log", ".bak", ""})
}

func (f *fuzzer) content() string {
	n := f.rng.IntN(200)
	if f.rng.IntN(15) == 0 {
		n = 3000 + f.rng.IntN(2000) // over the size limit
	}
	return strings.Repeat(string(rune('a'+f.rng.IntN(26))), n)
}

func (f *fuzzer) op() {
	dirs, others := f.tree()
	r := f.rng.IntN(100)
	if len(dirs)+len(others) > 400 {
		r = 58 // keep the tree small: remove a tree
	}
	switch {
	case r < 14: // create or overwrite a file
		rel := manifest.JoinPath(pick(f.rng, dirs), f.fileName())
		if fi, err := os.Lstat(f.p(rel)); err == nil && fi.IsDir() {
			return
		}
		f.note("write %s", rel)
		writeNoBlock(f.p(rel), []byte(f.content()), 0o644)
	case r < 24 && len(others) > 0: // modify a file in place
		rel := pick(f.rng, others)
		f.note("append %s", rel)
		if fl, err := os.OpenFile(f.p(rel), os.O_WRONLY|os.O_APPEND|syscall.O_NONBLOCK, 0); err == nil {
			fl.WriteString(strings.Repeat("+", 1+f.rng.IntN(5)))
			fl.Close()
		}
	case r < 32 && len(others) > 0:
		rel := pick(f.rng, others)
		f.note("remove %s", rel)
		os.Remove(f.p(rel))
	case r < 42:
		f.mkdirP()
	case r < 50 && len(dirs) > 1: // rename a directory somewhere else
		from := pick(f.rng, dirs[1:])
		to := manifest.JoinPath(pick(f.rng, dirs), f.name())
		if to == from || strings.HasPrefix(to, from+"/") {
			return
		}
		f.note("rename %s %s", from, to)
		os.Rename(f.p(from), f.p(to))
	case r < 53 && len(dirs) > 1: // move a tree out
		from := pick(f.rng, dirs[1:])
		f.note("move out %s", from)
		os.Rename(f.p(from), filepath.Join(f.outside, f.name()))
	case r < 56: // move a tree in
		f.seq++
		tmp := filepath.Join(f.outside, fmt.Sprint("in", f.seq))
		for i := range 1 + f.rng.IntN(3) {
			put(f.t, tmp, strings.Repeat("d/", i)+f.fileName(), f.content())
		}
		to := manifest.JoinPath(pick(f.rng, dirs), f.name())
		f.note("move in %s", to)
		os.Rename(tmp, f.p(to))
	case r < 61 && len(dirs) > 1:
		rel := pick(f.rng, dirs[1:])
		f.note("remove tree %s", rel)
		os.RemoveAll(f.p(rel))
	case r < 66 && len(others) > 0:
		rel := pick(f.rng, others)
		mode := pick(f.rng, []fs.FileMode{0o644, 0o600, 0o755, 0o444})
		f.note("chmod %s %o", rel, mode)
		os.Chmod(f.p(rel), mode)
	case r < 70 && len(dirs) > 1:
		rel := pick(f.rng, dirs[1:])
		mode := pick(f.rng, []fs.FileMode{0o755, 0o700, 0o750, 0o775})
		f.note("chmod dir %s %o", rel, mode)
		os.Chmod(f.p(rel), mode)
	case r < 75: // a symlink, or a file replaced by one
		rel := manifest.JoinPath(pick(f.rng, dirs), f.fileName())
		target := pick(f.rng, []string{"../x", "f1.txt", "/etc", "."})
		f.note("symlink %s -> %s", rel, target)
		os.Remove(f.p(rel))
		os.Symlink(target, f.p(rel))
	case r < 79 && len(others) > 0: // atomic save, or a move to another directory
		rel := pick(f.rng, others)
		to := rel
		if f.rng.IntN(2) == 0 {
			to = manifest.JoinPath(pick(f.rng, dirs), f.fileName())
		}
		tmp := rel + ".tmp~"
		f.note("atomic save %s via %s", to, tmp)
		if writeNoBlock(f.p(tmp), []byte(f.content()), 0o644) == nil {
			if os.Rename(f.p(tmp), f.p(to)) != nil {
				os.Remove(f.p(tmp))
			}
		}
	case r < 81 && len(dirs) > 1: // a tree replaced by one of the same shape
		rel := pick(f.rng, dirs[1:])
		f.seq++
		tmp := filepath.Join(f.outside, fmt.Sprint("new", f.seq))
		filepath.WalkDir(f.p(rel), func(p string, d fs.DirEntry, err error) error {
			if err == nil && d.IsDir() {
				sub, _ := filepath.Rel(f.p(rel), p)
				os.MkdirAll(filepath.Join(tmp, sub), 0o755)
				os.WriteFile(filepath.Join(tmp, sub, f.fileName()), []byte(f.content()), 0o644)
			}
			return nil
		})
		f.note("replace tree %s", rel)
		os.RemoveAll(f.p(rel))
		os.Rename(tmp, f.p(rel))
	case r < 82 && len(dirs) > 2: // two trees swap places
		a, b := pick(f.rng, dirs[1:]), pick(f.rng, dirs[1:])
		if a == b || strings.HasPrefix(a, b+"/") || strings.HasPrefix(b, a+"/") {
			return
		}
		f.note("swap %s %s", a, b)
		tmp := f.p(a) + ".swap"
		if os.Rename(f.p(a), tmp) == nil {
			os.Rename(f.p(b), f.p(a))
			os.Rename(tmp, f.p(b))
		}
	case r < 84 && len(others) > 0: // a file becomes a directory, or back
		rel := pick(f.rng, others)
		f.note("file to dir %s", rel)
		os.Remove(f.p(rel))
		if os.Mkdir(f.p(rel), 0o755) == nil {
			writeNoBlock(f.p(rel+"/inside.txt"), []byte(f.content()), 0o644)
		}
	case r < 92: // ignored places
		d := pick(f.rng, dirs)
		rel := pick(f.rng, []string{
			manifest.JoinPath(d, "node_modules/"+f.name()+"/i.js"),
			manifest.JoinPath(d, "trace.log"),
			manifest.JoinPath(d, "build/out/"+f.name()),
			"gen/" + f.name() + "/g.txt",
			"node_modules/pkg/index.js",
		})
		f.note("ignored write %s", rel)
		if err := os.MkdirAll(filepath.Dir(f.p(rel)), 0o755); err == nil {
			writeNoBlock(f.p(rel), []byte(f.content()), 0o644)
		}
	case r < 94: // the ignore rules change
		d := pick(f.rng, dirs)
		rules := pick(f.rng, []string{"*.log\n/gen/\n", "*.log\n/gen/\n*.bak\n", "*.log\n", "/gen/\nsrc/\n*.log\n"})
		if d != "" {
			rules = pick(f.rng, []string{"*.go\n", "x/\n", "!trace.log\n", ""})
		}
		rel := manifest.JoinPath(d, ".gitignore")
		f.note("ignore file %s %q", rel, rules)
		if rules == "" {
			os.Remove(f.p(rel))
		} else {
			writeNoBlock(f.p(rel), []byte(rules), 0o644)
		}
	default: // touch
		if len(others) > 0 {
			rel := pick(f.rng, others)
			f.note("touch %s", rel)
			now := time.Now()
			os.Chtimes(f.p(rel), now, now)
		}
	}
}

// mkdirP creates a chain of new directories and at once writes files
// into them (sometimes enough for the large-directory rule).
func (f *fuzzer) mkdirP() {
	dirs, _ := f.tree()
	rel := pick(f.rng, dirs)
	for range 1 + f.rng.IntN(4) {
		rel = manifest.JoinPath(rel, f.name())
	}
	f.note("mkdir -p %s", rel)
	if os.MkdirAll(f.p(rel), 0o755) != nil {
		return
	}
	nfiles := f.rng.IntN(3)
	if f.rng.IntN(10) == 0 {
		nfiles = 9
	}
	for d := rel; d != "" && strings.Count(d, "/") >= strings.Count(rel, "/")-2; d = manifest.ParentPath(d) {
		for range nfiles {
			writeNoBlock(f.p(manifest.JoinPath(d, f.fileName())), []byte(f.content()), 0o644)
		}
	}
}

// TestConcurrentWriter changes the tree while the watcher scans new
// directories (the random test above is sequential): a writer creates
// chains of directories with files written into them at once and keeps
// writing into directories it made earlier. After each round the
// incremental capture must equal a full one.
func TestConcurrentWriter(t *testing.T) {
	rounds, span := 8, 250*time.Millisecond
	if testtier.Short() {
		rounds = 3
	}
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 1))
	dir := t.TempDir()
	put(t, dir, "keep", "k")
	w := startWatcher(t, dir, Options{}, nil)
	c := newCapturer(t, dir, walker.Options{})
	w.Take()
	base := c.full(cas0).Root
	dirs := []string{""}
	n := 0
	for round := range rounds {
		stop := time.Now().Add(span)
		for time.Now().Before(stop) {
			n++
			switch d := pick(rng, dirs); rng.IntN(3) {
			case 0:
				rel := d
				for range 1 + rng.IntN(5) {
					rel = manifest.JoinPath(rel, fmt.Sprint("d", n, "_", rng.IntN(3)))
					if os.Mkdir(filepath.Join(dir, rel), 0o755) != nil {
						break
					}
					dirs = append(dirs, rel)
					os.WriteFile(filepath.Join(dir, rel, "f"), []byte(fmt.Sprint(n)), 0o644)
				}
			default:
				os.WriteFile(filepath.Join(dir, d, fmt.Sprint("g", rng.IntN(4))), []byte(fmt.Sprint(n)), 0o644)
			}
		}
		ch := settled(t, w)
		inc := c.incremental(base, ch)
		if full := c.full(base); inc.Root != full.Root {
			t.Fatalf("round %d: %s\nchanges: Full=%v %q", round, c.diff(full.Root, inc.Root), ch.Full, ch.Reason)
		}
		base = inc.Root
	}
	t.Logf("%d operations, %d directories", n, len(dirs))
}

// writeNoBlock is os.WriteFile that never waits: the fuzzer makes fifos,
// and opening one for writing with no reader would block the test for
// good. O_NONBLOCK makes that open fail with ENXIO instead.
func writeNoBlock(name string, data []byte, perm os.FileMode) error {
	fl, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_TRUNC|syscall.O_NONBLOCK, perm)
	if err != nil {
		return err
	}
	_, err = fl.Write(data)
	if err1 := fl.Close(); err == nil {
		err = err1
	}
	return err
}
