package restore

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/turnback/turnback/manifest"
)

// Trees whose staged files land in several directories (the root, a,
// a/b, and c for a file of a new directory below it).
var (
	syncOld = crashOld.Merge(tree{
		"a": dir(0o755), "a/x": file("x1", 0o644), "a/b": dir(0o755), "a/b/y": file("y1", 0o600),
		"c": dir(0o755), "a/same": file("same", 0o644),
	})
	syncNew = crashNew.Merge(tree{
		"a": dir(0o755), "a/x": file("x2", 0o644), "a/b": dir(0o755), "a/b/y": file("y2", 0o755),
		"a/b/new": file("new in a/b", 0o644), "c": dir(0o755), "c/n": dir(0o700), "c/n/z": file("z", 0o644),
		"a/same": file("same", 0o644),
	})
)

// syncLog records what a restore fsynced before its commit point: an
// entry is recorded only once its Sync has returned.
type syncLog struct {
	mu     sync.Mutex
	synced []fs.FileInfo
	fail   int // fail the fail-th sync (counting from 1) with EIO; 0: never
	calls  int
	// failedDir: the sync that failed was a directory's.
	failedDir bool
}

func (l *syncLog) sync(f *os.File) error {
	l.mu.Lock()
	l.calls++
	fail := l.calls == l.fail
	l.mu.Unlock()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	if fail {
		l.mu.Lock()
		l.failedDir = fi.IsDir()
		l.mu.Unlock()
		return &os.PathError{Op: "sync", Path: f.Name(), Err: syscall.EIO}
	}
	if err := f.Sync(); err != nil {
		return err
	}
	// Late on purpose: a commit point that does not wait for the batch
	// finds this one missing.
	time.Sleep(2 * time.Millisecond)
	l.mu.Lock()
	l.synced = append(l.synced, fi)
	l.mu.Unlock()
	return nil
}

func (l *syncLog) has(fi fs.FileInfo) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, s := range l.synced {
		if os.SameFile(s, fi) {
			return true
		}
	}
	return false
}

// TestStagedDurableBeforeCommit: at the commit point (the journal step),
// every staged file listed in the staging list has been fsynced, and so
// has every directory that holds a staging name: a crash right after the
// journal is durable finds every staged entry the journal names.
func TestStagedDurableBeforeCommit(t *testing.T) {
	// More files than a chunk: the first chunks are synced while later
	// ones are written.
	manyOld, manyNew := tree{}, tree{}
	for _, d := range []string{"p", "q", "q/r"} {
		manyOld[d], manyNew[d] = dir(0o755), dir(0o755)
	}
	for i := range syncChunk*2 + 7 {
		p := fmt.Sprintf("%s/f%d", []string{"p", "q", "q/r"}[i%3], i)
		manyOld[p], manyNew[p] = file(fmt.Sprint("old ", i), 0o644), file(fmt.Sprint("new ", i), 0o644)
	}
	for _, c := range []struct {
		name     string
		old, new tree
	}{{"kinds", syncOld, syncNew}, {"more than a chunk", manyOld, manyNew}} {
		t.Run(c.name, func(t *testing.T) { stagedDurable(t, c.old, c.new) })
	}
}

func stagedDurable(t *testing.T, old, new tree) {
	e := newEnv(t)
	build(t, e.dir, old)
	log := &syncLog{}
	o := e.opts()
	o.syncFile = log.sync
	checked := 0
	o.Hook = func(step string) error {
		if step != "journal" {
			return nil
		}
		st := &staging{}
		if ok, err := readJSON(filepath.Join(e.jdir, stagingName), st); err != nil || !ok {
			t.Fatalf("staging list at the commit point: %v, %v", ok, err)
		}
		dirsSeen := map[string]bool{}
		for _, s := range st.Files {
			full := filepath.Join(e.dir, filepath.FromSlash(s))
			fi, err := os.Lstat(full)
			if err != nil {
				t.Fatalf("staged %s: %v", s, err)
			}
			if fi.Mode().IsRegular() && !log.has(fi) {
				t.Errorf("staged file %s not fsynced before the commit point", s)
			}
			dir, _ := manifest.SplitPath(s)
			dirsSeen[dir] = true
			di, err := os.Lstat(filepath.Join(e.dir, filepath.FromSlash(dir)))
			if err != nil {
				t.Fatal(err)
			}
			if !log.has(di) {
				t.Errorf("directory %q of staged %s not fsynced before the commit point", dir, s)
			}
			checked++
		}
		if len(dirsSeen) < 3 {
			t.Errorf("staged in %d directories, want several: %q", len(dirsSeen), st.Files)
		}
		return nil
	}
	if _, err := Apply(context.Background(), e.root(), e.plan(e.actions(old, new)), o); err != nil {
		t.Fatal(err)
	}
	if checked < 8 {
		t.Errorf("checked %d staged files at the commit point", checked)
	}
	checkTree(t, e.dir, new)
	checkClean(t, e)
}

// TestApplySyncFails: a failed fsync of any staged file or directory
// before the commit point (EIO, injected at each sync in turn) fails the
// restore with that error and leaves the work tree as it was, with no
// staging file, journal or staging list, and no metadata committed; one
// of a directory the restore changed, after the commit point, leaves it
// unfinished (journal kept, nothing committed), and Recover finishes it.
// (Where directory syncs are best effort, dirSyncStrict false, a failed
// one lets the restore finish.)
func TestApplySyncFails(t *testing.T) {
	count := &syncLog{}
	before := 0 // syncs before the commit point
	{
		e := newEnv(t)
		build(t, e.dir, syncOld)
		o := e.opts()
		o.syncFile = count.sync
		o.Hook = func(step string) error {
			if step == "journal" {
				before = count.calls
			}
			return nil
		}
		if _, err := Apply(context.Background(), e.root(), e.plan(e.actions(syncOld, syncNew)), o); err != nil {
			t.Fatal(err)
		}
	}
	if before < 10 || count.calls-before < 4 {
		t.Fatalf("only %d syncs before the commit point and %d after", before, count.calls-before)
	}
	for k := before + 1; k <= count.calls; k++ {
		e := newEnv(t)
		build(t, e.dir, syncOld)
		o := e.opts()
		l := &syncLog{fail: k}
		o.syncFile = l.sync
		_, err := Apply(context.Background(), e.root(), e.plan(e.actions(syncOld, syncNew)), o)
		if !dirSyncStrict {
			if err != nil {
				t.Fatalf("sync %d (a directory's, after the commit point) fails: %v", k, err)
			}
			checkTree(t, e.dir, syncNew)
			continue
		}
		if !errors.Is(err, syscall.EIO) || !errors.Is(err, ErrUnfinished) {
			t.Fatalf("sync %d of %d (after the commit point) fails: Apply returned %v, want EIO, unfinished", k, count.calls, err)
		}
		if n := e.commitCount(); n != 0 {
			t.Fatalf("sync %d: %d commits before the tree was durable", k, n)
		}
		o.syncFile = nil
		if did, err := Recover(context.Background(), e.root(), o); !did || err != nil {
			t.Fatalf("sync %d: Recover: %v, %v", k, did, err)
		}
		checkTree(t, e.dir, syncNew)
		checkClean(t, e)
		if n := e.commitCount(); n != 1 {
			t.Fatalf("sync %d: %d commits after recovery", k, n)
		}
	}
	for k := 1; k <= before; k++ {
		e := newEnv(t)
		build(t, e.dir, syncOld)
		o := e.opts()
		l := &syncLog{fail: k}
		o.syncFile = l.sync
		_, err := Apply(context.Background(), e.root(), e.plan(e.actions(syncOld, syncNew)), o)
		if l.failedDir && !dirSyncStrict {
			// Best effort here: the restore goes on.
			if err != nil {
				t.Fatalf("sync %d (a directory's) fails: %v", k, err)
			}
			checkTree(t, e.dir, syncNew)
			continue
		}
		if !errors.Is(err, syscall.EIO) {
			t.Fatalf("sync %d of %d fails: Apply returned %v, want EIO", k, count.calls, err)
		}
		if errors.Is(err, ErrUnfinished) {
			t.Fatalf("sync %d: a failure before the commit point is not unfinished: %v", k, err)
		}
		checkTree(t, e.dir, syncOld)
		checkClean(t, e)
		if n := e.commitCount(); n != 0 {
			t.Fatalf("sync %d: %d commits", k, n)
		}
	}
}

// TestAppliedDurableBeforeCommit: after the commit point, every directory
// whose entries the restore changed (a rename into it, a removal from
// it, a new subdirectory) is fsynced again once the changes are made and
// before the metadata is committed and the journal removed, so a power
// loss cannot keep the journal's removal and lose a rename.
func TestAppliedDurableBeforeCommit(t *testing.T) {
	e := newEnv(t)
	build(t, e.dir, syncOld)
	actions := e.actions(syncOld, syncNew)
	log := &syncLog{}
	after := &syncLog{}
	o := e.opts()
	committed := false
	o.syncFile = func(f *os.File) error {
		if committed {
			return after.sync(f)
		}
		return log.sync(f)
	}
	checked := 0
	o.Hook = func(step string) error {
		switch step {
		case "journal":
			committed = true
		case "commit":
			for _, a := range actions {
				dir, _ := manifest.SplitPath(a.Path)
				di, err := os.Lstat(filepath.Join(e.dir, filepath.FromSlash(dir)))
				if err != nil || !di.IsDir() {
					continue // removed or replaced: its parent holds that
				}
				if !after.has(di) {
					t.Errorf("directory %q of %s not fsynced after the changes, before the commit", dir, a.Path)
				}
				checked++
			}
		}
		return nil
	}
	if _, err := Apply(context.Background(), e.root(), e.plan(actions), o); err != nil {
		t.Fatal(err)
	}
	if checked < 10 {
		t.Errorf("checked %d paths", checked)
	}
	checkTree(t, e.dir, syncNew)
	checkClean(t, e)
}
