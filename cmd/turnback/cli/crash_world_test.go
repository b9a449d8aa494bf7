package cli

// A crash world: one work tree and its store, the pristine copies a
// crash run starts from, running the built binary with step tracing, and
// the byte-level state of the work tree (exactly OLD, exactly NEW, or a
// mix) after a crash.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/turnback/turnback/manifest/treetest"
)

// crashScan records the state of the tree at root (its own mode under
// "."), and lists the staging files (names starting with ".turnback-")
// found anywhere in it.
func crashScan(root string) (treetest.Tree, []string, error) {
	tr, err := treetest.Read(root)
	if err != nil {
		return nil, nil, err
	}
	fi, err := os.Lstat(root)
	if err != nil {
		return nil, nil, err
	}
	st := treetest.Tree(tr)
	st["."] = treetest.Dir(fi.Mode())
	var staging []string
	for p := range st {
		if strings.HasPrefix(path.Base(p), ".turnback-") {
			staging = append(staging, p)
		}
	}
	sort.Strings(staging)
	return st, staging, nil
}

// crashDiff lists how got differs from want, path by path, sorted.
func crashDiff(got, want treetest.Tree) []string {
	return treetest.Diff(treetest.Tree(got), treetest.Tree(want))
}

func crashHead(lines []string, n int) string {
	if len(lines) <= n {
		return strings.Join(lines, "\n  ")
	}
	return strings.Join(lines[:n], "\n  ") + fmt.Sprintf("\n  ... and %d more", len(lines)-n)
}

type crashWorld struct {
	bin              string
	base             string
	wt, xdg, home    string
	pristineNew      string // {wt,xdg} after `end`: the tree is NEW
	pristineUndone   string // {wt,xdg} after a full `undo`: the tree is OLD
	old, new         treetest.Tree
	oldID, newID     string
	undoSteps        []string
	redoSteps        []string
	restoreSteps     []string
	undoTime         time.Duration
	touched          int
	oldFiles, stages int
}

type crashRun struct {
	stdout, stderr string
	code           int // -1: killed by a signal
	steps          []string
}

func (r crashRun) lastStep() string {
	if len(r.steps) == 0 {
		return ""
	}
	return r.steps[len(r.steps)-1]
}

// user is the world's user of the CLI harness: its home, data
// directory and work tree, and commands that wait a minute for the store.
func (w *crashWorld) user() *cliEnv {
	return &cliEnv{bin: w.bin, base: w.base, home: w.home, xdg: w.xdg, dir: w.wt, wd: w.base,
		extra: []string{"TURNBACK_LOCK_WAIT=60s"}}
}

// command prepares a command on the world's work tree, with extra
// environment.
func (w *crashWorld) command(ctx context.Context, extra []string, args ...string) *exec.Cmd {
	return w.user().with(extra...).execCommandContext(ctx, append([]string{"-C", w.wt}, args...)...)
}

func crashParseSteps(stderr string) []string {
	var steps []string
	for _, line := range strings.Split(stderr, "\n") {
		if s, ok := crashParseStep(line); ok {
			steps = append(steps, s)
		}
	}
	return steps
}

// crashParseStep reads a TURNBACK_TEST_TRACE line "step K: NAME".
func crashParseStep(line string) (string, bool) {
	rest, ok := strings.CutPrefix(line, "step ")
	if !ok {
		return "", false
	}
	num, name, ok := strings.Cut(rest, ": ")
	if !ok {
		return "", false
	}
	if _, err := strconv.Atoi(num); err != nil {
		return "", false
	}
	return num + ": " + name, true
}

// run runs the binary on the world's work tree and waits for it.
func (w *crashWorld) run(t testing.TB, extra []string, args ...string) crashRun {
	t.Helper()
	// Not t.Context(): cleanups run commands too (watch --stop).
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := w.command(ctx, extra, args...)
	var so, se bytes.Buffer
	cmd.Stdout, cmd.Stderr = &so, &se
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("turnback %s: timed out\nstderr:\n%s", strings.Join(args, " "), se.String())
	}
	if cmd.ProcessState == nil {
		t.Fatalf("turnback %s: %v", strings.Join(args, " "), err)
	}
	return crashRun{stdout: so.String(), stderr: se.String(), code: cmd.ProcessState.ExitCode(), steps: crashParseSteps(se.String())}
}

// ok runs a command that must succeed.
func (w *crashWorld) ok(t testing.TB, args ...string) crashRun {
	t.Helper()
	r := w.run(t, nil, args...)
	if r.code != 0 {
		t.Fatalf("turnback %s: exit %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), r.code, r.stdout, r.stderr)
	}
	return r
}

// reset makes the work tree and the store the pristine copies in dir.
func (w *crashWorld) reset(t testing.TB, dir string) {
	t.Helper()
	for _, p := range []string{w.wt, w.xdg} {
		if err := os.RemoveAll(p); err != nil {
			t.Fatal(err)
		}
	}
	if err := treetest.Copy(filepath.Join(dir, "wt"), w.wt); err != nil {
		t.Fatal(err)
	}
	if err := treetest.Copy(filepath.Join(dir, "xdg"), w.xdg); err != nil {
		t.Fatal(err)
	}
}

func (w *crashWorld) save(t testing.TB, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := treetest.Copy(w.wt, filepath.Join(dir, "wt")); err != nil {
		t.Fatal(err)
	}
	if err := treetest.Copy(w.xdg, filepath.Join(dir, "xdg")); err != nil {
		t.Fatal(err)
	}
}

// state scans the work tree and fails on staging files left in it.
func (w *crashWorld) state(t testing.TB) treetest.Tree {
	t.Helper()
	st, staging, err := crashScan(w.wt)
	if err != nil {
		t.Fatal(err)
	}
	if len(staging) > 0 {
		t.Errorf("staging files left in the work tree:\n  %s", crashHead(staging, 10))
	}
	for p := range st {
		if strings.HasPrefix(filepath.Base(p), ".turnback-") {
			delete(st, p)
		}
	}
	return st
}

// which says whether the work tree is exactly OLD or exactly NEW, and
// fails the test (listing the differences to both) if it is neither.
func (w *crashWorld) which(t testing.TB) string {
	t.Helper()
	st := w.state(t)
	dOld, dNew := crashDiff(st, w.old), crashDiff(st, w.new)
	switch {
	case len(dOld) == 0:
		return "old"
	case len(dNew) == 0:
		return "new"
	}
	t.Errorf("work tree is neither the old state nor the new one: %d paths differ from OLD, %d from NEW\nvs OLD:\n  %s\nvs NEW:\n  %s",
		len(dOld), len(dNew), crashHead(dOld, 12), crashHead(dNew, 12))
	return "mix"
}

func (w *crashWorld) want(t testing.TB, want string) {
	t.Helper()
	if got := w.which(t); got != want && got != "mix" {
		t.Errorf("work tree is exactly the %s state, want the %s state", got, want)
	}
}

// storeLeftovers lists a journal or staging list left in the store
// directory.
func (w *crashWorld) storeLeftovers(t testing.TB) []string {
	t.Helper()
	var out []string
	for _, name := range []string{"journal", "staging"} {
		m, err := filepath.Glob(filepath.Join(w.xdg, "turnback", "*", name))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, m...)
	}
	return out
}

func (w *crashWorld) noStoreLeftovers(t testing.TB) {
	t.Helper()
	if l := w.storeLeftovers(t); len(l) > 0 {
		t.Errorf("restore records left in the store: %v", l)
	}
}

// undone reports whether `log --json` lists turn 1 as undone.
func (w *crashWorld) undone(t testing.TB) bool {
	t.Helper()
	r := w.ok(t, "--json", "log")
	var doc struct {
		Turns []struct {
			Turn   int  `json:"turn"`
			Undone bool `json:"undone"`
			Open   bool `json:"open"`
		} `json:"turns"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
		t.Fatalf("log --json: %v\n%s", err, r.stdout)
	}
	if len(doc.Turns) != 1 || doc.Turns[0].Turn != 1 || doc.Turns[0].Open {
		t.Fatalf("log --json: want exactly closed turn 1, got %s", r.stdout)
	}
	return doc.Turns[0].Undone
}

// clean asserts that `status --json` lists no change: the session's idea
// of the current state matches the disk.
func (w *crashWorld) clean(t testing.TB) {
	t.Helper()
	r := w.ok(t, "--json", "status")
	var doc struct {
		Changes []struct {
			Path   string `json:"path"`
			Change string `json:"change"`
		} `json:"changes"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
		t.Fatalf("status --json: %v\n%s", err, r.stdout)
	}
	if len(doc.Changes) > 0 {
		var lines []string
		for _, c := range doc.Changes {
			lines = append(lines, c.Change+" "+c.Path)
		}
		t.Errorf("status after recovery lists %d changes against the session's last snapshot:\n  %s", len(lines), crashHead(lines, 10))
	}
}

func crashSnapID(t testing.TB, r crashRun) string {
	t.Helper()
	var doc struct {
		Snapshot string `json:"snapshot"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil || doc.Snapshot == "" {
		t.Fatalf("bad snap/end JSON: %v\n%s", err, r.stdout)
	}
	return doc.Snapshot
}

var crashTraceOn = []string{"TURNBACK_TEST_TRACE=1"}

func crashStepNames(steps []string) []string {
	out := make([]string, len(steps))
	for i, s := range steps {
		_, name, _ := strings.Cut(s, ": ")
		out[i] = name
	}
	return out
}

// newCrashWorld builds a world in a fresh temporary directory: the old
// tree, `snap`, the turn, `end`, pristine copies, and the step lists of
// a complete undo, redo and restore (each checked to give exactly the
// expected state).
func newCrashWorld(t *testing.T, bin string) *crashWorld {
	t.Helper()
	base := crashTempDir(t)
	w := &crashWorld{
		bin: bin, base: base,
		wt: filepath.Join(base, "work"), xdg: filepath.Join(base, "xdg"), home: filepath.Join(base, "home"),
		pristineNew: filepath.Join(base, "pristine-new"), pristineUndone: filepath.Join(base, "pristine-undone"),
	}
	for _, d := range []string{w.wt, w.xdg, w.home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	c := crashTree{t: t, root: w.wt}
	files := crashBuildOld(c)
	w.oldFiles = len(files)
	w.old = w.state(t)
	w.oldID = crashSnapID(t, w.ok(t, "--json", "snap", "-m", "crash test turn"))
	crashMakeTurn(c, files)
	w.new = w.state(t)
	w.newID = crashSnapID(t, w.ok(t, "--json", "end"))
	w.touched = len(crashDiff(w.new, w.old))
	w.save(t, w.pristineNew)

	w.reset(t, w.pristineNew) // as every crash run: a copied tree, a stale stat cache
	start := time.Now()
	r := w.run(t, crashTraceOn, "undo")
	w.undoTime = time.Since(start)
	if r.code != 0 {
		t.Fatalf("undo: exit %d\n%s", r.code, r.stderr)
	}
	w.undoSteps = crashStepNames(r.steps)
	w.want(t, "old")
	if !w.undone(t) {
		t.Fatal("after undo, log does not list turn 1 as undone")
	}
	w.clean(t)
	w.save(t, w.pristineUndone)

	r = w.run(t, crashTraceOn, "redo")
	if r.code != 0 {
		t.Fatalf("redo: exit %d\n%s", r.code, r.stderr)
	}
	w.redoSteps = crashStepNames(r.steps)
	w.want(t, "new")
	if w.undone(t) {
		t.Fatal("after redo, log still lists turn 1 as undone")
	}
	w.clean(t)

	w.reset(t, w.pristineNew)
	r = w.run(t, crashTraceOn, "restore", w.oldID)
	if r.code != 0 {
		t.Fatalf("restore: exit %d\n%s", r.code, r.stderr)
	}
	w.restoreSteps = crashStepNames(r.steps)
	w.want(t, "old")
	for _, s := range w.undoSteps {
		if strings.HasPrefix(s, "stage ") {
			w.stages++
		}
	}
	return w
}

// crashTempDir returns a fresh directory removed when t ends. It prefers
// a tmpfs (/dev/shm with 1 GiB free; CRASH_TEST_DIR overrides): the
// tests kill the process, never the kernel, so the page cache gives the
// same results as a disk, and a reset copies 1,200 paths many times
// over, which a busy disk makes many times slower.
func crashTempDir(t *testing.T) string {
	t.Helper()
	parent := os.Getenv("CRASH_TEST_DIR")
	if parent == "" {
		if free, ok := crashFreeBytes("/dev/shm"); ok && free >= 1<<30 {
			parent = "/dev/shm"
		}
	}
	if parent != "" {
		if dir, err := os.MkdirTemp(parent, "turnback-crash-"); err == nil {
			t.Cleanup(func() {
				if err := os.RemoveAll(dir); err != nil {
					t.Errorf("removing %s: %v", dir, err)
				}
			})
			return dir
		}
	}
	return t.TempDir()
}

// crashPool holds the worlds of a test and hands them out to parallel
// subtests, one subtest per world at a time.
type crashPool struct {
	worlds []*crashWorld
	ch     chan *crashWorld
	rng    *rand.Rand // draws crash points; used by one goroutine at a time
}

func newCrashPool(t *testing.T) *crashPool {
	bin := testBinary(t)
	n := min(crashWorkers, runtime.GOMAXPROCS(0))
	if testing.Short() {
		n = 1
	}
	p := &crashPool{ch: make(chan *crashWorld, n)}
	for i := 0; i < n; i++ {
		start := time.Now()
		w := newCrashWorld(t, bin)
		if i == 0 {
			t.Logf("world: %d old files, %d paths differ between OLD and NEW; undo has %d steps (%d staged files), redo %d, restore %d; a full undo takes %v; built in %v",
				w.oldFiles, w.touched, len(w.undoSteps), w.stages, len(w.redoSteps), len(w.restoreSteps), w.undoTime.Round(time.Millisecond), time.Since(start).Round(time.Millisecond))
		} else if !slices.Equal(w.undoSteps, p.worlds[0].undoSteps) || !slices.Equal(w.redoSteps, p.worlds[0].redoSteps) {
			t.Fatal("two identically built worlds have different step lists")
		}
		p.worlds = append(p.worlds, w)
		p.ch <- w
	}
	return p
}

func (p *crashPool) get() *crashWorld { return <-p.ch }

func (p *crashPool) put(w *crashWorld) { p.ch <- w }

func (p *crashPool) first() *crashWorld { return p.worlds[0] }
