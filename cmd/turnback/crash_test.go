package main

// Crash and full-disk tests of the restore (invariant 2, all or nothing):
// a turn that touches about 2,000 paths is undone, redone and restored
// while the process is killed (failpoints at named steps, and real
// SIGKILLs at arbitrary moments) or a step fails with ENOSPC; after the
// next command the work tree must be exactly the old state or exactly the
// new one, byte for byte, and the session must agree with it.
//
// The tests run the real binary (built once by crashBinary) in temporary
// work trees, with HOME and XDG_DATA_HOME pointing into temporary
// directories. Each worker ("world") has its own work tree and store and
// resets them between runs by copying pristine copies back.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"maps"
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

	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/manifest/treetest"
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

// ---- byte-level tree state ----

// crashScan records the state of the tree at root (its own mode under
// "."), and lists the staging files (names starting with ".turnback-")
// found anywhere in it.
func crashScan(root string) (fsTree, []string, error) {
	tr, err := treetest.Read(root)
	if err != nil {
		return nil, nil, err
	}
	fi, err := os.Lstat(root)
	if err != nil {
		return nil, nil, err
	}
	st := fsTree(tr)
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
func crashDiff(got, want fsTree) []string {
	return treetest.Diff(treetest.Tree(got), treetest.Tree(want))
}

func crashHead(lines []string, n int) string {
	if len(lines) <= n {
		return strings.Join(lines, "\n  ")
	}
	return strings.Join(lines[:n], "\n  ") + fmt.Sprintf("\n  ... and %d more", len(lines)-n)
}

// ---- the fixture: a work tree and a turn touching ~2,000 paths ----

type crashTree struct {
	t    testing.TB
	root string
}

func (c crashTree) abs(rel string) string { return filepath.Join(c.root, filepath.FromSlash(rel)) }

func (c crashTree) write(rel string, perm fs.FileMode, data []byte) {
	c.t.Helper()
	p := c.abs(rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		c.t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o600); err != nil {
		c.t.Fatal(err)
	}
	if err := os.Chmod(p, perm); err != nil {
		c.t.Fatal(err)
	}
}

func (c crashTree) mkdir(rel string, perm fs.FileMode) {
	c.t.Helper()
	if err := os.MkdirAll(c.abs(rel), 0o755); err != nil {
		c.t.Fatal(err)
	}
	if err := os.Chmod(c.abs(rel), perm); err != nil {
		c.t.Fatal(err)
	}
}

func (c crashTree) symlink(target, rel string) {
	c.t.Helper()
	if err := os.MkdirAll(filepath.Dir(c.abs(rel)), 0o755); err != nil {
		c.t.Fatal(err)
	}
	if err := os.Symlink(target, c.abs(rel)); err != nil {
		c.t.Fatal(err)
	}
}

func (c crashTree) remove(rel string) {
	c.t.Helper()
	if err := os.RemoveAll(c.abs(rel)); err != nil {
		c.t.Fatal(err)
	}
}

func (c crashTree) chmod(rel string, perm fs.FileMode) {
	c.t.Helper()
	if err := os.Chmod(c.abs(rel), perm); err != nil {
		c.t.Fatal(err)
	}
}

func (c crashTree) read(rel string) []byte {
	c.t.Helper()
	data, err := os.ReadFile(c.abs(rel))
	if err != nil {
		c.t.Fatal(err)
	}
	return data
}

func crashContent(rng *rand.Rand, size int, binary bool, tag string) []byte {
	if binary {
		b := make([]byte, size+8)
		for i := 0; i < size; i += 8 {
			v := rng.Uint64()
			for j := 0; j < 8; j++ {
				b[i+j] = byte(v >> (8 * j))
			}
		}
		return b[:size]
	}
	var buf bytes.Buffer
	for n := 0; buf.Len() < size; n++ {
		fmt.Fprintf(&buf, "%s line %d: value %d\n", tag, n, rng.IntN(1_000_000))
	}
	return buf.Bytes()[:size]
}

func crashSize(rng *rand.Rand) int {
	switch r := rng.IntN(100); {
	case r < 5:
		return 0
	case r < 70:
		return 1 + rng.IntN(400)
	case r < 92:
		return 400 + rng.IntN(8<<10)
	case r < 99:
		return 8<<10 + rng.IntN(56<<10)
	default:
		return 64<<10 + rng.IntN(236<<10)
	}
}

// crashBuildOld writes the old state (deterministic): 1,900 files in
// pkgNN/subN, a deep chain, big chunked files, symlinks (one dangling,
// one to a directory) and empty directories. It returns the regular
// files' paths.
func crashBuildOld(c crashTree) []string {
	rng := rand.New(rand.NewPCG(20240601, 1))
	var files []string
	file := func(rel string, perm fs.FileMode, data []byte) {
		c.write(rel, perm, data)
		files = append(files, rel)
	}
	for d := 0; d < 10; d++ {
		for s := 0; s < 5; s++ {
			for f := 0; f < 38; f++ {
				rel := fmt.Sprintf("pkg%02d/sub%d/f%03d.txt", d, s, f)
				perm := fs.FileMode(0o644)
				switch {
				case f%7 == 3:
					perm = 0o755
				case f%11 == 5:
					perm = 0o600
				}
				file(rel, perm, crashContent(rng, crashSize(rng), f%5 == 4, rel))
			}
		}
		c.mkdir(fmt.Sprintf("pkg%02d/empty", d), 0o755)
		c.symlink("sub0/f000.txt", fmt.Sprintf("pkg%02d/link0", d))
		c.symlink("sub1", fmt.Sprintf("pkg%02d/link1", d))
		c.symlink("../nowhere/x", fmt.Sprintf("pkg%02d/dangling", d))
	}
	for i := 0; i < 10; i++ {
		rel := fmt.Sprintf("deep/a/b/c/d/e/f%d.bin", i)
		file(rel, 0o644, crashContent(rng, crashSize(rng), true, rel))
	}
	file("README.md", 0o644, crashContent(rng, 3000, false, "readme"))
	file("Makefile", 0o755, crashContent(rng, 500, false, "make"))
	file(".env", 0o600, []byte("SECRET=1\n"))
	file("big1.bin", 0o644, crashContent(rng, 2_500_000, true, ""))
	file("big2.txt", 0o644, crashContent(rng, 1_500_000, false, "big2"))
	c.mkdir("emptyroot", 0o755)
	c.mkdir("emptyroot/nested", 0o755)
	return files
}

// crashMakeTurn turns the old state into the new one: content edits
// (same size and new size), chmods, deletions, creations, whole subtrees
// created, deleted and moved, and every kind of type flip.
func crashMakeTurn(c crashTree, oldFiles []string) {
	rng := rand.New(rand.NewPCG(7, 7))
	reservedDirs := []string{"pkg01/sub2/", "pkg03/sub4/", "pkg04/sub3/", "pkg09/sub0/", "pkg05/sub3/"}
	reservedFiles := map[string]bool{
		"pkg00/sub0/f000.txt": true, "pkg02/sub1/f005.txt": true, "pkg02/sub1/f006.txt": true,
		"pkg06/sub0/f010.txt": true, "pkg04/sub2/f001.txt": true, "big1.bin": true, "big2.txt": true,
		"README.md": true, "Makefile": true,
	}
	toggle := func(rel string) {
		fi, err := os.Lstat(c.abs(rel))
		if err != nil {
			c.t.Fatal(err)
		}
		switch fi.Mode().Perm() {
		case 0o755:
			c.chmod(rel, 0o644)
		case 0o600:
			c.chmod(rel, 0o640)
		default:
			c.chmod(rel, 0o755)
		}
	}
	edit := func(rel string) {
		data := c.read(rel)
		if len(data) > 16 && rng.IntN(2) == 0 {
			// Same size, different bytes.
			i := rng.IntN(len(data) - 8)
			for j := i; j < i+8; j++ {
				data[j] ^= 0x5a
			}
		} else {
			data = crashContent(rng, crashSize(rng)+1, rng.IntN(5) == 0, "new "+rel)
		}
		fi, err := os.Lstat(c.abs(rel))
		if err != nil {
			c.t.Fatal(err)
		}
		c.write(rel, fi.Mode().Perm(), data)
	}
next:
	for _, rel := range oldFiles {
		if reservedFiles[rel] {
			continue
		}
		for _, d := range reservedDirs {
			if strings.HasPrefix(rel, d) {
				continue next
			}
		}
		switch r := rng.IntN(100); {
		case r < 40:
			edit(rel)
		case r < 48:
			toggle(rel)
		case r < 51:
			edit(rel)
			toggle(rel)
		case r < 66:
			c.remove(rel)
		}
	}
	// New files in existing directories.
	for d := 0; d < 10; d++ {
		for s := 0; s < 5; s++ {
			dir := fmt.Sprintf("pkg%02d/sub%d", d, s)
			if fi, err := os.Lstat(c.abs(dir)); err != nil || !fi.IsDir() || slices.Contains(reservedDirs, dir+"/") {
				continue
			}
			for f := 0; f < 8; f++ {
				rel := fmt.Sprintf("%s/new%02d.txt", dir, f)
				perm := fs.FileMode(0o644)
				if f == 2 {
					perm = 0o755
				}
				c.write(rel, perm, crashContent(rng, crashSize(rng), f == 3, rel))
			}
		}
	}
	// New directories (each under the 200-file "new large directory"
	// limit, which counts files recursively).
	for i := 0; i < 280; i++ {
		dir := []string{"newpkg/a", "newpkg/a/b", "newpkg/c/d/e", "newpkg2/x", "newpkg2/y"}[i%5]
		rel := fmt.Sprintf("%s/n%03d.go", dir, i)
		c.write(rel, 0o644, crashContent(rng, crashSize(rng), false, rel))
	}
	c.mkdir("newpkg/empty", 0o755)
	c.mkdir("newpkg/private", 0o700)
	c.symlink("a/b", "newpkg/link")
	c.chmod("newpkg/c", 0o750)
	// Whole subtrees deleted and moved.
	c.remove("pkg03/sub4")
	if err := os.Rename(c.abs("pkg09/sub0"), c.abs("pkg09/sub0-moved")); err != nil {
		c.t.Fatal(err)
	}
	c.remove("deep/a/b/c/d")
	c.write("deep/a/b/c/new.txt", 0o644, []byte("deep new\n"))
	c.chmod("deep/a/b", 0o711)
	// Type flips (crashFlips lists them).
	c.remove("pkg00/sub0/f000.txt") // file -> dir with content
	c.write("pkg00/sub0/f000.txt/inner.txt", 0o644, []byte("inner\n"))
	c.write("pkg00/sub0/f000.txt/deeper/x.bin", 0o755, crashContent(rng, 5000, true, ""))
	c.remove("pkg01/sub2") // dir with content -> file
	c.write("pkg01/sub2", 0o644, []byte("was a directory\n"))
	c.remove("pkg04/sub3") // dir with content -> symlink (to a directory inside the tree)
	c.symlink("../pkg05/sub3", "pkg04/sub3")
	c.remove("pkg05/link1") // symlink -> dir with content
	for i := 0; i < 3; i++ {
		c.write(fmt.Sprintf("pkg05/link1/g%d.txt", i), 0o644, crashContent(rng, 100*i, false, "g"))
	}
	c.remove("pkg07/dangling") // symlink -> dir holding a symlink
	c.symlink("../../pkg07", "pkg07/dangling/up")
	c.remove("pkg02/sub1/f005.txt") // file -> symlink
	c.symlink("f006.txt", "pkg02/sub1/f005.txt")
	c.remove("pkg03/link0") // symlink -> file
	c.write("pkg03/link0", 0o755, []byte("#!/bin/sh\necho was a link\n"))
	c.remove("pkg04/link0") // symlink retargeted
	c.symlink("sub2/f001.txt", "pkg04/link0")
	c.remove("pkg05/dangling")
	c.remove("pkg06/empty") // empty dir -> file
	c.write("pkg06/empty", 0o600, []byte("now a file\n"))
	c.remove("pkg06/sub0/f010.txt") // file -> empty dir
	c.mkdir("pkg06/sub0/f010.txt", 0o755)
	c.remove("pkg08/link1") // symlink -> empty dir
	c.mkdir("pkg08/link1", 0o755)
	c.remove("pkg08/empty") // empty dir -> symlink
	c.symlink("sub0", "pkg08/empty")
	// Directory permissions, empty directories, root files.
	c.chmod("pkg07", 0o700)
	c.chmod("pkg07/sub1", 0o750)
	c.mkdir("pkg08/newempty", 0o755)
	c.remove("pkg09/empty")
	c.remove("emptyroot/nested")
	big := c.read("big1.bin")
	for i := 1_200_000; i < 1_200_100; i++ {
		big[i] ^= 0xff
	}
	c.write("big1.bin", 0o644, big)
	c.remove("big2.txt")
	c.write("README.md", 0o644, append(c.read("README.md"), "one more line\n"...))
	c.chmod("Makefile", 0o644)
	c.write("NEW.md", 0o644, []byte("new at the root\n"))
}

// crashFlips are the paths whose type the turn changes.
var crashFlips = []string{
	"pkg00/sub0/f000.txt", "pkg01/sub2", "pkg04/sub3", "pkg05/link1", "pkg07/dangling",
	"pkg02/sub1/f005.txt", "pkg03/link0", "pkg06/empty", "pkg06/sub0/f010.txt", "pkg08/link1", "pkg08/empty",
}

// ---- a world: one work tree, its store, pristine copies ----

type crashWorld struct {
	bin              string
	base             string
	wt, xdg, home    string
	pristineNew      string // {wt,xdg} after `end`: the tree is NEW
	pristineUndone   string // {wt,xdg} after a full `undo`: the tree is OLD
	old, new         fsTree
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

func (w *crashWorld) environ(extra ...string) []string {
	return cliEnviron(w.home, w.xdg, append([]string{"TURNBACK_LOCK_WAIT=60s", "TURNBACK_AUTO_WATCH=0"}, extra...)...)
}

func (w *crashWorld) command(ctx context.Context, extra []string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, w.bin, append([]string{"-C", w.wt}, args...)...)
	cmd.Env = w.environ(extra...)
	cmd.Dir = w.base
	return cmd
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
	if err := copyTree(filepath.Join(dir, "wt"), w.wt); err != nil {
		t.Fatal(err)
	}
	if err := copyTree(filepath.Join(dir, "xdg"), w.xdg); err != nil {
		t.Fatal(err)
	}
}

func (w *crashWorld) save(t testing.TB, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := copyTree(w.wt, filepath.Join(dir, "wt")); err != nil {
		t.Fatal(err)
	}
	if err := copyTree(w.xdg, filepath.Join(dir, "xdg")); err != nil {
		t.Fatal(err)
	}
}

// state scans the work tree and fails on staging files left in it.
func (w *crashWorld) state(t testing.TB) fsTree {
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
// same results as a disk, and a reset copies 2,000 files many times
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

func (p *crashPool) get() *crashWorld   { return <-p.ch }
func (p *crashPool) put(w *crashWorld)  { p.ch <- w }
func (p *crashPool) first() *crashWorld { return p.worlds[0] }

// ---- choosing crash points ----

// crashPoints picks 1-based step numbers: every one of the first `head`,
// `perStage` spread over the staging steps, every step within `around`
// of "journal", `perApply` spread over the remove/place steps, and the
// last `tail` steps (commit, clear journal), plus the last remove step,
// the first place step and the last place step.
func crashPoints(steps []string, head, perStage, around, perApply, tail int) []int {
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
			add(lo + int(float64(hi-lo)*(float64(i)+0.5)/float64(n)))
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

// crashShortPoints: the first step, the commit point and the step after
// it, and the last two (commit, clear journal).
func crashShortPoints(steps []string) []int {
	j := slices.Index(steps, "journal") + 1
	return []int{1, j, j + 1, len(steps) - 1, len(steps)}
}

// ---- the tests ----

func TestCrashMatrix(t *testing.T) {
	crashSkipNonUnix(t)
	start := time.Now()
	pool := newCrashPool(t)
	w0 := pool.first()
	if w0.touched < 1800 {
		t.Fatalf("the turn touches %d paths, want about 2,000", w0.touched)
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

	t.Run("undo", func(t *testing.T) {
		steps := w0.undoSteps
		points := crashPoints(steps, 10, 6, 3, 18, 4)
		// Between taking away the old thing at a flipped path and putting
		// the new one there.
		for _, p := range crashFlips {
			if k := slices.Index(steps, "place "+p) + 1; k > 0 && !slices.Contains(points, k) {
				points = append(points, k)
			}
		}
		sort.Ints(points)
		if testing.Short() {
			points = crashPoints(steps, 2, 2, 1, 4, 2)
		}
		t.Logf("%d crash points out of %d steps", len(points), len(steps))
		for i, k := range points {
			t.Run(fmt.Sprintf("step%04d", k), func(t *testing.T) {
				t.Parallel()
				w := pool.get()
				defer pool.put(w)
				crashOne(t, w, crashCase{
					from: w.pristineNew, args: []string{"undo"}, steps: steps, k: k,
					recoverWith: []string{"status", "log", "diff", "show " + w.newID[:12]}[i%4],
					pre:         "new", post: "old", followUp: i%4 == 0 || crashNearEdge(steps, k),
				})
			})
		}
	})

	t.Run("redo", func(t *testing.T) {
		steps := w0.redoSteps
		points := crashPoints(steps, 1, 1, 1, 2, 2)
		for _, p := range crashFlips[:5] {
			if k := slices.Index(steps, "place "+p) + 1; k > 0 && !slices.Contains(points, k) {
				points = append(points, k)
			}
		}
		sort.Ints(points)
		if testing.Short() {
			points = crashShortPoints(steps)
		}
		t.Logf("%d crash points out of %d steps", len(points), len(steps))
		for i, k := range points {
			t.Run(fmt.Sprintf("step%04d", k), func(t *testing.T) {
				t.Parallel()
				w := pool.get()
				defer pool.put(w)
				crashOne(t, w, crashCase{
					from: w.pristineUndone, args: []string{"redo"}, steps: steps, k: k,
					recoverWith: "status", pre: "old", post: "new", followUp: i%2 == 0,
				})
			})
		}
	})

	t.Run("restoreID", func(t *testing.T) {
		steps := w0.restoreSteps
		points := crashPoints(steps, 1, 1, 1, 3, 2)
		if testing.Short() {
			points = crashShortPoints(steps)
		}
		t.Logf("%d crash points out of %d steps", len(points), len(steps))
		for i, k := range points {
			t.Run(fmt.Sprintf("step%04d", k), func(t *testing.T) {
				t.Parallel()
				w := pool.get()
				defer pool.put(w)
				crashOne(t, w, crashCase{
					from: w.pristineNew, args: []string{"restore", w.oldID[:12]}, steps: steps, k: k,
					recoverWith: "status", pre: "new", post: "old", followUp: i%2 == 0, restore: true,
				})
			})
		}
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

// crashNearEdge: the steps around the commit point and the end.
func crashNearEdge(steps []string, k int) bool {
	j := slices.Index(steps, "journal") + 1
	return k == j || k == j+1 || k >= len(steps)-1
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
	if c.daemon {
		w.startDaemon(t)
	}
	r := w.run(t, append([]string{"TURNBACK_TEST_CRASH_AT=" + strconv.Itoa(c.k)}, crashTraceOn...), c.args...)
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
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
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
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
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

// TestCrashTypeFlips: undo, redo and restore of a turn that turns a
// directory with content into a file or symlink, or the other way round.
// The crash matrix's turn does all of these; this is the quick check of
// the uninterrupted case (it failed with "manifest: edit P: changes below
// a file" before bec7b1f).
func TestCrashTypeFlips(t *testing.T) {
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
