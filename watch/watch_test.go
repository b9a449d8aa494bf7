//go:build linux

package watch

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/turnback/turnback/walker"
)

// ruleTree is the work tree every rule case starts from.
func ruleTree(t *testing.T) (dir, outside string) {
	dir, outside = t.TempDir(), t.TempDir()
	for rel, data := range map[string]string{
		".gitignore":          "*.log\n/logs/\n",
		"a/f.txt":             "f",
		"a/b/g.txt":           "g",
		"a/b/c/h.txt":         "h",
		"d/keep":              "",
		"e/keep":              "",
		"logs/l.txt":          "l",
		"node_modules/m/m.js": "m",
	} {
		put(t, dir, rel, data)
	}
	put(t, outside, "in/sub/x.txt", "x")
	put(t, outside, "in/y.txt", "y")
	return dir, outside
}

func TestRules(t *testing.T) {
	type step struct {
		op   func(t *testing.T, dir, outside string)
		want []string // exactly Changes.Dirs
		full bool
	}
	p := func(dir, rel string) string { return filepath.Join(dir, filepath.FromSlash(rel)) }
	cases := []struct {
		name  string
		steps []step
	}{
		{"write file", []step{{func(t *testing.T, dir, _ string) {
			f, err := os.OpenFile(p(dir, "a/b/g.txt"), os.O_APPEND|os.O_WRONLY, 0)
			must(t, err)
			f.WriteString("more")
			f.Close()
		}, []string{"a/b"}, false}}},
		{"create file in root", []step{{func(t *testing.T, dir, _ string) { put(t, dir, "new.txt", "n") }, []string{""}, false}}},
		{"remove file", []step{{func(t *testing.T, dir, _ string) { must(t, os.Remove(p(dir, "a/b/c/h.txt"))) }, []string{"a/b/c"}, false}}},
		{"chmod file", []step{{func(t *testing.T, dir, _ string) { must(t, os.Chmod(p(dir, "a/f.txt"), 0o600)) }, []string{"a"}, false}}},
		{"touch file", []step{{func(t *testing.T, dir, _ string) {
			old := time.Now().Add(-time.Hour)
			must(t, os.Chtimes(p(dir, "a/f.txt"), old, old))
		}, []string{"a"}, false}}},
		{"chmod dir", []step{{func(t *testing.T, dir, _ string) { must(t, os.Chmod(p(dir, "a/b"), 0o700)) }, []string{"a", "a/b"}, false}}},
		{"mkdir -p with files at once", []step{{func(t *testing.T, dir, _ string) {
			must(t, os.MkdirAll(p(dir, "x/y/z"), 0o755))
			put(t, dir, "x/y/z/deep.txt", "d")
			put(t, dir, "x/y/mid.txt", "m")
		}, []string{"", "x", "x/y", "x/y/z"}, false}}},
		{"rename dir in tree", []step{
			{func(t *testing.T, dir, _ string) { must(t, os.Rename(p(dir, "a/b"), p(dir, "d/b2"))) }, []string{"a", "d", "d/b2", "d/b2/c"}, false},
			// The watches moved with the tree must report the new paths.
			{func(t *testing.T, dir, _ string) { put(t, dir, "d/b2/c/h.txt", "changed") }, []string{"d/b2/c"}, false},
		}},
		{"rename dir out", []step{
			{func(t *testing.T, dir, outside string) { must(t, os.Rename(p(dir, "a/b"), p(outside, "b"))) }, []string{"a"}, false},
			{func(t *testing.T, _, outside string) { put(t, outside, "b/c/h.txt", "changed") }, nil, false},
		}},
		{"move dir in", []step{{func(t *testing.T, dir, outside string) { must(t, os.Rename(p(outside, "in"), p(dir, "e/in"))) }, []string{"e", "e/in", "e/in/sub"}, false}}},
		{"remove dir tree", []step{{func(t *testing.T, dir, _ string) { must(t, os.RemoveAll(p(dir, "a/b"))) }, []string{"a", "a/b", "a/b/c"}, false}}},
		{"replace dir by file", []step{
			{func(t *testing.T, dir, _ string) {
				must(t, os.RemoveAll(p(dir, "a/b")))
				put(t, dir, "a/b", "now a file")
			}, []string{"a", "a/b", "a/b/c"}, false},
			{func(t *testing.T, dir, _ string) { put(t, dir, "a/b", "written") }, []string{"a"}, false},
		}},
		{"replace file by dir", []step{{func(t *testing.T, dir, _ string) {
			must(t, os.Remove(p(dir, "a/f.txt")))
			put(t, dir, "a/f.txt/in.txt", "i")
		}, []string{"a", "a/f.txt"}, false}}},
		{"atomic save", []step{{func(t *testing.T, dir, _ string) {
			put(t, dir, "a/.f.txt.tmp", "new")
			must(t, os.Rename(p(dir, "a/.f.txt.tmp"), p(dir, "a/f.txt")))
		}, []string{"a"}, false}}},
		{"symlink", []step{{func(t *testing.T, dir, _ string) { must(t, os.Symlink("../d", p(dir, "a/link"))) }, []string{"a"}, false}}},
		{"symlinked dir not followed", []step{
			{func(t *testing.T, dir, outside string) { must(t, os.Symlink(outside, p(dir, "a/out"))) }, []string{"a"}, false},
			{func(t *testing.T, _, outside string) { put(t, outside, "in/z.txt", "z") }, nil, false},
		}},
		{"ignored dir (built-in)", []step{{func(t *testing.T, dir, _ string) {
			put(t, dir, "node_modules/m/m.js", "changed")
			put(t, dir, "node_modules/new/deep/n.js", "n")
		}, nil, false}}},
		{"ignored file", []step{{func(t *testing.T, dir, _ string) {
			put(t, dir, "a/debug.log", "x")
			put(t, dir, "a/debug.log", "y")
			must(t, os.Remove(p(dir, "a/debug.log")))
		}, nil, false}}},
		{"ignored dir (pattern)", []step{{func(t *testing.T, dir, _ string) { put(t, dir, "logs/new/l2.txt", "l") }, nil, false}}},
		{"new ignored dir", []step{{func(t *testing.T, dir, _ string) { put(t, dir, "a/node_modules/out/o.bin", "o") }, nil, false}}},
		{"ignore file changed", []step{
			{func(t *testing.T, dir, _ string) { put(t, dir, ".gitignore", "*.log\n") }, nil, true},
			// Rebuilt with the new rules: logs is watched now.
			{func(t *testing.T, dir, _ string) { put(t, dir, "logs/l.txt", "changed") }, []string{"logs"}, false},
		}},
		{"nested ignore file created", []step{{func(t *testing.T, dir, _ string) { put(t, dir, "a/b/.ignore", "c/\n") }, nil, true}}},
		{"new dir with its own ignore file", []step{
			{func(t *testing.T, dir, outside string) {
				put(t, outside, "n/.gitignore", "skip/\n")
				put(t, outside, "n/skip/s.txt", "s")
				must(t, os.Rename(p(outside, "n"), p(dir, "n")))
			}, []string{"", "n"}, false},
			{func(t *testing.T, dir, _ string) { put(t, dir, "n/skip/s.txt", "changed") }, nil, false},
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir, outside := ruleTree(t)
			w := startWatcher(t, dir, Options{}, nil)
			if ch := w.Take(); !ch.Full {
				t.Fatalf("first Take not Full: %+v", ch)
			}
			for i, st := range tc.steps {
				st.op(t, dir, outside)
				ch := settled(t, w)
				if ch.Full != st.full {
					t.Fatalf("step %d: Full = %v (%s), want %v", i, ch.Full, ch.Reason, st.full)
				}
				if st.full {
					if ch.Reason == "" {
						t.Fatalf("step %d: Full without a reason", i)
					}
					precise(t, w)
					continue
				}
				got := dirList(ch.Dirs)
				want := dirList(setOf(st.want))
				if !slices.Equal(got, want) {
					t.Fatalf("step %d: Dirs = %v, want %v", i, got, want)
				}
			}
		})
	}
}

func setOf(s []string) map[string]bool {
	m := map[string]bool{}
	for _, d := range s {
		m[d] = true
	}
	return m
}

func TestChangesDirty(t *testing.T) {
	if (Changes{Full: true, Dirs: setOf([]string{"a"})}).Dirty() != nil {
		t.Fatal("Dirty of a Full change set is not nil")
	}
	d := Changes{Dirs: setOf([]string{"a/b/c", "x"})}.Dirty()
	for rel, want := range map[string]bool{"": true, "a": true, "a/b": true, "a/b/c": true, "x": true,
		"a/b/c/d": false, "a/bb": false, "y": false, "a/b/cc": false} {
		if d(rel) != want {
			t.Errorf("Dirty(%q) = %v, want %v", rel, !want, want)
		}
	}
	none := Changes{}.Dirty()
	if none("") {
		t.Error(`Dirty("") of no changes is true`)
	}
	var c Changes
	c.Merge(Changes{Dirs: setOf([]string{"a"})})
	c.Merge(Changes{Dirs: setOf([]string{"b"}), Full: true, Reason: "r1"})
	c.Merge(Changes{Full: true, Reason: "r2"})
	if !c.Full || c.Reason != "r1" || len(c.Dirs) != 2 {
		t.Fatalf("Merge: %+v", c)
	}
}

// TestOverflow fills the watcher's own queue while its loop is held:
// the next Take is Full with a reason, a full walk is correct, and once
// the watches are rebuilt changes are precise again, also inside a tree
// created while events were dropped.
func TestOverflow(t *testing.T) {
	dir := t.TempDir()
	put(t, dir, "a/f.txt", "f")
	var hold atomic.Bool
	gate := make(chan struct{})
	w := startWatcher(t, dir, Options{QueueSize: 4}, func(w *Watcher) {
		w.hook = func() {
			if hold.Load() {
				<-gate
			}
		}
	})
	c := newCapturer(t, dir, walker.Options{})
	w.Take()
	base := c.full(cas0).Root

	hold.Store(true)
	for i := range 50 {
		put(t, dir, "a/n"+string(rune('a'+i%26))+".txt", "x")
	}
	must(t, os.MkdirAll(filepath.Join(dir, "late/b/c"), 0o755))
	put(t, dir, "late/b/c/f.txt", "f")
	waitFor(t, func() bool {
		w.mu.Lock()
		defer w.mu.Unlock()
		return w.full
	})
	hold.Store(false)
	close(gate)

	ch := settled(t, w)
	if !ch.Full || !strings.Contains(ch.Reason, "queue full") {
		t.Fatalf("after overflow: Full=%v reason %q", ch.Full, ch.Reason)
	}
	if ch.Dirty() != nil {
		t.Fatal("Dirty of a Full change set is not nil")
	}
	inc := c.incremental(base, ch)
	if full := c.full(base); inc.Root != full.Root || inc.Stats.DirsReused != 0 {
		t.Fatalf("capture after overflow: %s (reused %d)", c.diff(full.Root, inc.Root), inc.Stats.DirsReused)
	}
	base = inc.Root
	precise(t, w)
	base = c.full(base).Root

	put(t, dir, "late/b/c/f.txt", "changed")
	ch = settled(t, w)
	if ch.Full || !slices.Equal(dirList(ch.Dirs), dirList(setOf([]string{"late/b/c"}))) {
		t.Fatalf("after the rebuild: Full=%v %q Dirs %v", ch.Full, ch.Reason, dirList(ch.Dirs))
	}
	inc = c.incremental(base, ch)
	if full := c.full(base); inc.Root != full.Root {
		t.Fatalf("incremental after the rebuild: %s", c.diff(full.Root, inc.Root))
	}
	if inc.Stats.DirsRead != 4 {
		t.Errorf("DirsRead = %d, want 4 (root, late, late/b, late/b/c)", inc.Stats.DirsRead)
	}
}

// TestWatchLimit makes Add fail with ENOSPC: every Take is Full (the
// watcher retries at each Take) until watches can be added again.
func TestWatchLimit(t *testing.T) {
	dir := t.TempDir()
	put(t, dir, "a/b/f.txt", "f")
	var limit atomic.Bool
	limit.Store(true)
	w := startWatcher(t, dir, Options{}, func(w *Watcher) {
		w.addHook = func(rel string) error {
			if limit.Load() && rel == "a/b" {
				return syscall.ENOSPC
			}
			return nil
		}
	})
	if p := w.Problem(); !strings.Contains(p, "inotify watch limit reached") || !strings.Contains(p, "a/b") {
		t.Errorf("Problem after Start = %q, want the watch limit at a/b", p)
	}
	for range 3 {
		ch := settled(t, w)
		if !ch.Full || !strings.Contains(ch.Reason, "watch limit") {
			t.Fatalf("with the limit reached: Full=%v reason %q", ch.Full, ch.Reason)
		}
		time.Sleep(10 * time.Millisecond)
	}
	limit.Store(false)
	precise(t, w)
	if p := w.Problem(); p != "" {
		t.Errorf("Problem after a complete rebuild = %q, want none", p)
	}
	put(t, dir, "a/b/f.txt", "changed")
	if ch := settled(t, w); ch.Full || !slices.Equal(dirList(ch.Dirs), dirList(setOf([]string{"a/b"}))) {
		t.Fatalf("after the limit: Full=%v %q Dirs %v", ch.Full, ch.Reason, dirList(ch.Dirs))
	}
}

// TestUnwatchable: a directory that cannot be watched for lack of
// permission is dirty in every Take, without doubt.
func TestUnwatchable(t *testing.T) {
	dir := t.TempDir()
	put(t, dir, "a/locked/f.txt", "f")
	w := startWatcher(t, dir, Options{}, func(w *Watcher) {
		w.addHook = func(rel string) error {
			if rel == "a/locked" {
				return &os.PathError{Op: "inotify_add_watch", Path: rel, Err: syscall.EACCES}
			}
			return nil
		}
	})
	w.Take()
	for range 2 {
		ch := settled(t, w)
		if ch.Full || !ch.Dirs["a/locked"] {
			t.Fatalf("Full=%v %q Dirs %v", ch.Full, ch.Reason, dirList(ch.Dirs))
		}
	}
	must(t, os.RemoveAll(filepath.Join(dir, "a/locked")))
	settled(t, w)
	if ch := settled(t, w); ch.Full || len(ch.Dirs) != 0 {
		t.Fatalf("after removal: Full=%v Dirs %v", ch.Full, dirList(ch.Dirs))
	}
}

func TestLifecycle(t *testing.T) {
	dir := t.TempDir()
	w, err := New(dir, Options{})
	must(t, err)
	if ch := w.Take(); !ch.Full {
		t.Fatal("Take before Start not Full")
	}
	if err := w.Sync(context.Background()); err == nil {
		t.Fatal("Sync before Start succeeded")
	}
	ctx, cancel := context.WithCancel(context.Background())
	must(t, w.Start(ctx))
	if err := w.Start(ctx); err == nil {
		t.Fatal("second Start succeeded")
	}
	w.Take()
	put(t, dir, "f", "f")
	if ch := settled(t, w); ch.Full || !ch.Dirs[""] {
		t.Fatalf("%+v", ch)
	}
	cancel()
	waitFor(t, func() bool { return w.Take().Full })
	must(t, w.Close())
	must(t, w.Close())
	if ch := w.Take(); !ch.Full {
		t.Fatal("Take after Close not Full")
	}
	if _, err := os.Stat(w.cookieDir); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("cookie dir left behind: %v", err)
	}
	if _, err := New(filepath.Join(dir, "f"), Options{}); err == nil {
		t.Fatal("New on a file succeeded")
	}
	// A root that vanishes before Start.
	gone := filepath.Join(t.TempDir(), "gone")
	must(t, os.Mkdir(gone, 0o755))
	w2, err := New(gone, Options{Ignored: func(string, bool) bool { return false }})
	must(t, err)
	must(t, os.Remove(gone))
	if err := w2.Start(context.Background()); err == nil {
		t.Fatal("Start on a removed root succeeded")
	}
	w2.Close()
}

func waitFor(t testing.TB, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met after 30 s")
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// TestCookieDirRemoved: Sync survives its directory being removed (a
// temporary-file cleaner): it recreates it, and the watcher doubts once.
func TestCookieDirRemoved(t *testing.T) {
	dir := t.TempDir()
	w := startWatcher(t, dir, Options{}, nil)
	w.Take()
	must(t, os.RemoveAll(w.cookieDir))
	if ch := settled(t, w); !ch.Full || !strings.Contains(ch.Reason, "sync directory") {
		t.Fatalf("Full=%v %q", ch.Full, ch.Reason)
	}
	precise(t, w)
	put(t, dir, "f", "f")
	if ch := settled(t, w); ch.Full || !ch.Dirs[""] {
		t.Fatalf("Full=%v %q Dirs %v", ch.Full, ch.Reason, dirList(ch.Dirs))
	}
}

// TestRootReplaced: a work tree removed and created again, or replaced
// by another directory moved to its path, is doubted (its watch reports
// nothing about the new directory), watched again, and then reported
// precisely, with the new directory's ignore rules.
func TestRootReplaced(t *testing.T) {
	for _, how := range []string{"removed", "moved away", "replaced by rename"} {
		t.Run(how, func(t *testing.T) {
			base := t.TempDir()
			dir := filepath.Join(base, "tree")
			put(t, dir, "a/f", "old")
			w := startWatcher(t, dir, Options{}, nil)
			precise(t, w)
			switch how {
			case "removed":
				must(t, os.RemoveAll(dir))
			case "moved away":
				must(t, os.Rename(dir, filepath.Join(base, "gone")))
			}
			// Taken while the root is missing: in doubt.
			if how != "replaced by rename" {
				if ch := settled(t, w); !ch.Full {
					t.Fatalf("root %s: Take not Full: %v", how, dirList(ch.Dirs))
				}
			}
			other := filepath.Join(base, "other")
			put(t, other, "b/g", "new")
			put(t, other, ".gitignore", "skip/\n")
			if how == "replaced by rename" {
				must(t, os.RemoveAll(dir))
			}
			must(t, os.Rename(other, dir))
			if ch := settled(t, w); !ch.Full || !strings.Contains(ch.Reason, "root") {
				t.Fatalf("root %s and back: Full=%v %q", how, ch.Full, ch.Reason)
			}
			precise(t, w)
			put(t, dir, "b/h", "h")
			put(t, dir, "skip/x", "x")
			ch := settled(t, w)
			if ch.Full || !ch.Dirs["b"] || ch.Dirs["skip"] {
				t.Fatalf("after the rebuild: Full=%v %q Dirs %v (want b, not the ignored skip)", ch.Full, ch.Reason, dirList(ch.Dirs))
			}
		})
	}
}
