package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/internal/testtier"
	"github.com/turnback/turnback/manifest/treetest"
	"github.com/turnback/turnback/walker"
	"github.com/turnback/turnback/watch/daemon"
)

// daemonWorld is a work tree with a store and a watch daemon (the built
// binary, in the foreground) serving it.
type daemonWorld struct {
	t     *testing.T
	e     *cliEnv // runs the binary: the daemon and hooks
	wt    string
	store string
	proc  *exec.Cmd
	log   *bytes.Buffer
}

func newDaemonWorld(t *testing.T, watchArgs ...string) *daemonWorld {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("the watch daemon's tests are written for inotify")
	}
	e := newBinEnv(t)
	w := &daemonWorld{t: t, e: e, wt: e.dir, store: filepath.Join(e.base, "st")}
	// The in-process client (run) and the daemon share this environment;
	// a command that fails to reach the daemon must fail at once.
	e.setenv("TURNBACK_STORE", w.store)
	e.setenv("TURNBACK_LOCK_WAIT", "0")
	e.setenv("XDG_DATA_HOME", e.xdg)
	w.start(watchArgs...)
	return w
}

// start runs "turnback watch" in the foreground and waits until it serves.
func (w *daemonWorld) start(args ...string) {
	t := w.t
	t.Helper()
	w.log = &bytes.Buffer{}
	w.proc = w.e.execCommand(append([]string{"-C", w.wt, "watch"}, args...)...)
	w.proc.Stdout, w.proc.Stderr = w.log, w.log
	if err := w.proc.Start(); err != nil {
		t.Fatal(err)
	}
	p := w.proc
	t.Cleanup(func() {
		if p.ProcessState == nil {
			_ = p.Process.Signal(syscall.SIGTERM)
			_ = p.Wait()
		}
	})
	deadline := time.Now().Add(time.Minute)
	for {
		if info, ok := daemon.Ping(w.store); ok && info.PID == w.proc.Process.Pid && info.Ready {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the daemon did not start; its output:\n%s", w.log)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// cli runs a command in-process (the client side of forwarding).
func (w *daemonWorld) cli(args ...string) (stdout, stderr string, code int) {
	var so, se bytes.Buffer
	code = run(context.Background(), append([]string{"-C", w.wt}, args...), &so, &se)
	return so.String(), se.String(), code
}

type daemonSnapDoc struct {
	Snapshot string `json:"snapshot"`
	Stats    struct {
		HashedFiles int64 `json:"hashed_files"`
		Watch       *struct {
			Incremental bool   `json:"incremental"`
			FullWalk    string `json:"full_walk"`
			DirsRead    int64  `json:"dirs_read"`
		} `json:"watch"`
	} `json:"stats"`
}

// snap snaps through the daemon and returns the --json document.
func (w *daemonWorld) snap() daemonSnapDoc {
	w.t.Helper()
	so, se, code := w.cli("--json", "snap")
	if code != 0 {
		w.t.Fatalf("snap: exit %d\n%s%s\ndaemon:\n%s", code, so, se, w.log)
	}
	var doc daemonSnapDoc
	if err := json.Unmarshal([]byte(so), &doc); err != nil {
		w.t.Fatalf("snap --json: %v\n%s", err, so)
	}
	if doc.Stats.Watch == nil {
		w.t.Fatalf("snap did not go through the daemon (no stats.watch):\n%s", so)
	}
	return doc
}

// fullWalk captures the work tree from scratch into a memory store.
func (w *daemonWorld) fullWalk() cas.Hash {
	w.t.Helper()
	root, err := os.OpenRoot(w.wt)
	if err != nil {
		w.t.Fatal(err)
	}
	defer root.Close()
	s, err := cas.NewStore(cas.NewMemory())
	if err != nil {
		w.t.Fatal(err)
	}
	res, err := walker.Capture(context.Background(), root, s, walker.Options{})
	if err != nil {
		w.t.Fatal(err)
	}
	return res.Root
}

// TestDaemonRandomOps: thousands of random file operations (nested
// directories made with mkdir -p and written into at once, renames of
// whole directories, deletes, undo through the daemon), each followed by
// a snap through the daemon whose snapshot must equal a full walk of the
// same state. TURNBACK_DAEMON_OPS sets the number of operations.
func TestDaemonRandomOps(t *testing.T) {
	testtier.Slow(t)
	ops := 2000
	if testing.Short() {
		ops = 300
	}
	if v, err := strconv.Atoi(os.Getenv("TURNBACK_DAEMON_OPS")); err == nil && v > 0 {
		ops = v
	}
	seed := uint64(time.Now().UnixNano())
	if v, err := strconv.ParseUint(os.Getenv("TURNBACK_DAEMON_SEED"), 10, 64); err == nil {
		seed = v
	}
	t.Logf("seed %d (TURNBACK_DAEMON_SEED), %d operations", seed, ops)
	rng := rand.New(rand.NewPCG(seed, 7))
	w := newDaemonWorld(t)
	incremental, undos := 0, 0
	var kinds = map[string]int{}
	for i := 0; i < ops; i++ {
		var what string
		if i > 0 && i%97 == 0 {
			so, se, code := w.cli("undo")
			if code != 0 && code != exitConflict {
				t.Fatalf("op %d: undo: exit %d\n%s%s", i, code, so, se)
			}
			what = "undo"
			undos++
		} else {
			what = randomOp(t, rng, w.wt)
		}
		kinds[strings.Fields(what)[0]]++
		doc := w.snap()
		if doc.Stats.Watch.Incremental {
			incremental++
		}
		if want := w.fullWalk(); doc.Snapshot != want.String() {
			t.Fatalf("op %d (%s): snap through the daemon %s, a full walk %s (watch: %+v)\ntree:\n%s",
				i, what, doc.Snapshot[:12], want.Short(), *doc.Stats.Watch, listTree(w.wt))
		}
	}
	t.Logf("%d of %d snaps incremental; %d undos; operations: %v", incremental, ops, undos, kinds)
	if incremental < ops*9/10 {
		t.Errorf("only %d of %d snaps were incremental", incremental, ops)
	}
}

// randomOp makes one random change under root and says what it was.
func randomOp(t *testing.T, rng *rand.Rand, root string) string {
	t.Helper()
	dirs, files := []string{"."}, []string{}
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == root {
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		switch {
		case d.IsDir():
			dirs = append(dirs, rel)
		case d.Type().IsRegular():
			files = append(files, rel)
		}
		return nil
	})
	pick := func(list []string) string { return list[rng.IntN(len(list))] }
	name := func() string { return fmt.Sprintf("n%03d", rng.IntN(60)) }
	must := func(err error) {
		if err != nil && !os.IsExist(err) && !os.IsNotExist(err) {
			t.Fatal(err)
		}
	}
	content := func() []byte {
		return []byte(strings.Repeat(fmt.Sprintf("%x\n", rng.Uint64()), 1+rng.IntN(40)))
	}
	abs := func(rel string) string { return filepath.Join(root, rel) }
	switch r := rng.IntN(100); {
	case r < 25 || len(files) == 0: // write a file (new or not)
		p := filepath.Join(pick(dirs), name()+".txt")
		if fi, err := os.Lstat(abs(p)); err == nil && fi.IsDir() {
			return "skip dir-named file"
		}
		must(os.WriteFile(abs(p), content(), 0o644))
		return "write " + p
	case r < 40: // modify an existing file
		p := pick(files)
		must(os.WriteFile(abs(p), content(), 0o644))
		return "modify " + p
	case r < 50: // mkdir -p a/b/c and write into it at once
		p := filepath.Join(pick(dirs), "d"+name(), "e"+name(), "f"+name())
		must(os.MkdirAll(abs(p), 0o755))
		for j := 0; j < 1+rng.IntN(4); j++ {
			must(os.WriteFile(filepath.Join(abs(p), name()), content(), 0o644))
		}
		return "mkdir-p " + p
	case r < 62: // delete a file
		p := pick(files)
		must(os.Remove(abs(p)))
		return "delete " + p
	case r < 70: // rename a file
		p, d := pick(files), pick(dirs)
		q := filepath.Join(d, name()+".mv")
		if _, err := os.Lstat(abs(q)); err == nil {
			return "skip rename onto existing"
		}
		must(os.Rename(abs(p), abs(q)))
		return "rename " + p + " " + q
	case r < 80 && len(dirs) > 1: // rename a whole directory
		p := pick(dirs[1:])
		d := pick(dirs)
		if d == p || strings.HasPrefix(d+"/", p+"/") {
			return "skip rename into itself"
		}
		q := filepath.Join(d, "r"+name())
		if _, err := os.Lstat(abs(q)); err == nil {
			return "skip rename onto existing"
		}
		must(os.Rename(abs(p), abs(q)))
		return "rename-dir " + p + " " + q
	case r < 86 && len(dirs) > 1: // delete a whole directory
		p := pick(dirs[1:])
		must(os.RemoveAll(abs(p)))
		return "rmdir " + p
	case r < 92: // chmod a file
		p := pick(files)
		mode := fs.FileMode(0o644)
		if rng.IntN(2) == 0 {
			mode = 0o755
		}
		must(os.Chmod(abs(p), mode))
		return "chmod " + p
	case r < 96: // a symlink
		p := filepath.Join(pick(dirs), name()+".ln")
		_ = os.Remove(abs(p))
		must(os.Symlink("target-"+name(), abs(p)))
		return "symlink " + p
	default: // an empty directory
		p := filepath.Join(pick(dirs), "m"+name())
		must(os.Mkdir(abs(p), 0o755))
		return "mkdir " + p
	}
}

// listTree lists a tree for a failure message (200 paths at most).
func listTree(root string) string {
	tr, err := treetest.Read(root)
	if err != nil {
		return err.Error()
	}
	lines := strings.Split(strings.TrimSuffix(tr.String(), "\n"), "\n")
	if len(lines) > 200 {
		lines = append(lines[:200], "...")
	}
	return strings.Join(lines, "\n")
}

// TestDaemonOverflow: with a tiny event queue a flood of changes makes
// the watcher drop events; the next snap walks everything, says so, and
// is still exact.
func TestDaemonOverflow(t *testing.T) {
	testtier.Slow(t)
	w := newDaemonWorld(t, "--queue-size=1")
	if err := os.MkdirAll(filepath.Join(w.wt, "flood"), 0o755); err != nil {
		t.Fatal(err)
	}
	w.snap()
	overflows := 0
	for round := 0; round < 20 && overflows < 2; round++ {
		for i := 0; i < 1500; i++ {
			p := filepath.Join(w.wt, "flood", fmt.Sprintf("f%04d", i))
			if err := os.WriteFile(p, []byte(fmt.Sprintf("round %d file %d\n", round, i)), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		doc := w.snap()
		if want := w.fullWalk(); doc.Snapshot != want.String() {
			t.Fatalf("round %d: snap through the daemon %s, a full walk %s (watch: %+v)", round, doc.Snapshot[:12], want.Short(), *doc.Stats.Watch)
		}
		if r := doc.Stats.Watch.FullWalk; strings.Contains(r, "queue full") {
			overflows++
			if doc.Stats.Watch.Incremental {
				t.Errorf("round %d: a full walk (%s) reported as incremental", round, r)
			}
		}
		t.Logf("round %d: watch %+v", round, *doc.Stats.Watch)
	}
	if overflows == 0 {
		t.Fatal("20 floods of 1,500 writes never overflowed a queue of 1 event")
	}
	// Once it has rebuilt its watches, the watcher is trusted again (with
	// a queue of one event, only while nothing but its own sync marker
	// happens).
	for i := 0; ; i++ {
		doc := w.snap()
		if doc.Snapshot != w.fullWalk().String() {
			t.Fatalf("after the overflow: snap %s differs from a full walk", doc.Snapshot[:12])
		}
		if doc.Stats.Watch.Incremental {
			break
		}
		if i == 100 {
			t.Fatalf("100 snaps after the overflow, still walking everything: %+v", *doc.Stats.Watch)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
