package restore

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/manifest"
	"github.com/turnback/turnback/manifest/treetest"
)

// node is what one path of a test tree holds, tree a whole test tree
// (slash-separated relative path -> node): the one tree fixture,
// manifest/treetest.
type (
	node = treetest.Entry
	tree = treetest.Tree
)

func file(data string, mode fs.FileMode) node { return treetest.File(data, mode) }
func dir(mode fs.FileMode) node               { return treetest.Dir(mode) }
func link(target string) node                 { return treetest.Symlink(target) }

// nodeKind is the manifest kind of a test node.
func nodeKind(n node) manifest.Kind {
	switch n.Kind {
	case treetest.KindFile:
		return manifest.KindFile
	case treetest.KindDir:
		return manifest.KindDir
	case treetest.KindSymlink:
		return manifest.KindSymlink
	}
	return 0
}

func sortedPaths[V any](m map[string]V) []string {
	ps := make([]string, 0, len(m))
	for p := range m {
		ps = append(ps, p)
	}
	sort.Slice(ps, func(i, j int) bool { return manifest.ComparePaths(ps[i], ps[j]) < 0 })
	return ps
}

// build creates t under base with plain os calls (the test's own setup,
// not the code under test). Directory modes are set last, deepest first,
// so that a read-only directory can still be filled.
func build(t testing.TB, base string, tr tree) {
	t.Helper()
	treetest.MustWrite(t, base, tr)
}

// state reads the tree under base as it is on disk, without following
// any symlink. Anything but a file, a directory or a symlink fails the
// test.
func state(t testing.TB, base string) tree {
	t.Helper()
	out := treetest.MustRead(t, base)
	for _, p := range out.Paths() {
		if out[p].Kind == treetest.KindOther {
			t.Fatalf("read tree %s: %s: unexpected file type %s", base, p, out[p].Data)
		}
	}
	return out
}

func checkTree(t testing.TB, base string, want tree) {
	t.Helper()
	if d := treetest.Diff(state(t, base), want); len(d) > 0 {
		t.Errorf("tree %s differs:\n  %s", base, strings.Join(d, "\n  "))
	}
}

// mtimes records the modification time of every file and symlink under
// base. (Directories are left out: staging a file in a directory and
// removing it again necessarily moves the directory's mtime.)
func mtimes(t testing.TB, base string) map[string]time.Time {
	t.Helper()
	out := map[string]time.Time{}
	err := filepath.WalkDir(base, func(full string, de fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if de.IsDir() {
			return nil
		}
		fi, err := os.Lstat(full)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(base, full)
		out[filepath.ToSlash(rel)] = fi.ModTime()
		return nil
	})
	if err != nil {
		t.Fatalf("mtimes %s: %v", base, err)
	}
	return out
}

func checkMtimes(t testing.TB, base string, want map[string]time.Time) {
	t.Helper()
	got := mtimes(t, base)
	for p, w := range want {
		if g, ok := got[p]; ok && !g.Equal(w) {
			t.Errorf("%s: mtime changed from %v to %v", p, w, g)
		}
	}
}

// stagingLeftovers lists every name under base that looks like one of
// our staging or temporary files.
func stagingLeftovers(t testing.TB, base string) []string {
	t.Helper()
	var out []string
	_ = filepath.WalkDir(base, func(full string, de fs.DirEntry, err error) error {
		if err == nil && strings.HasPrefix(de.Name(), stagePrefix) {
			out = append(out, full)
		}
		return nil
	})
	return out
}

// checkClean asserts that no staging file is left in the work tree and
// that the journal directory holds nothing (no journal, staging list or
// temporary file).
func checkClean(t testing.TB, e *env) {
	t.Helper()
	if l := stagingLeftovers(t, e.dir); len(l) > 0 {
		t.Errorf("staging files left in the work tree: %q", l)
	}
	ents, err := os.ReadDir(e.jdir)
	if err != nil {
		t.Fatal(err)
	}
	for _, de := range ents {
		t.Errorf("left in the journal directory: %s", de.Name())
	}
}

func journalExists(t testing.TB, e *env) bool {
	t.Helper()
	_, err := os.Lstat(filepath.Join(e.jdir, journalName))
	return err == nil
}

// env is one test setup: a work tree, a journal directory beside it and a
// store of contents.
type env struct {
	t     testing.TB
	dir   string // the work tree
	jdir  string // the journal directory (the "store directory")
	mem   *cas.Memory
	store *cas.Store

	mu      sync.Mutex
	commits [][]byte // Meta of every Commit call
}

func newEnv(t testing.TB) *env {
	t.Helper()
	mem := cas.NewMemory()
	s, err := cas.NewStore(mem)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	e := &env{t: t, dir: tempDir(t), jdir: tempDir(t), mem: mem, store: s}
	return e
}

// tempDir is t.TempDir, made removable even after a test left read-only
// directories in it (which matters when the tests run unprivileged).
func tempDir(t testing.TB) string {
	d := t.TempDir()
	t.Cleanup(func() { makeWritable(d) })
	return d
}

func makeWritable(base string) {
	_ = filepath.WalkDir(base, func(full string, de fs.DirEntry, err error) error {
		if err == nil && de.IsDir() {
			_ = os.Chmod(full, 0o755)
		}
		return nil
	})
}

// root opens the work tree; closed at the end of the test.
func (e *env) root() *os.Root {
	e.t.Helper()
	r, err := os.OpenRoot(e.dir)
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() { r.Close() })
	return r
}

func (e *env) commit(ctx context.Context, meta []byte) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.commits = append(e.commits, bytes.Clone(meta))
	return nil
}

func (e *env) commitCount() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.commits)
}

func (e *env) opts() Options {
	return Options{JournalDir: e.jdir, WorkTree: e.dir, Source: e.store, Meta: []byte("meta:" + e.dir), Commit: e.commit, Save: e.save}
}

// save stores what a restore displaced.
func (e *env) save(ctx context.Context, r io.Reader) (cas.Hash, int64, error) {
	w := e.store.NewWriter()
	defer w.Cancel()
	h, n, err := w.PutFile(ctx, r, -1)
	if err != nil {
		return cas.Hash{}, 0, err
	}
	return h, n, w.Flush()
}

// put stores data and returns its content hash.
func (e *env) put(data string) cas.Hash {
	e.t.Helper()
	w := e.store.NewWriter()
	defer w.Cancel()
	h, n, err := w.PutFile(context.Background(), strings.NewReader(data), int64(len(data)))
	if err != nil || n != int64(len(data)) {
		e.t.Fatalf("PutFile: %d, %v", n, err)
	}
	if err := w.Flush(); err != nil {
		e.t.Fatal(err)
	}
	return h
}

// entry makes the tree entry a capture would record for n at path p,
// storing a file's content.
func (e *env) entry(p string, n node) *manifest.Entry {
	_, name := manifest.SplitPath(p)
	me := &manifest.Entry{Name: name, Kind: nodeKind(n), Mode: manifest.ModeOf(n.Mode)}
	// Captures record the owner: the test's own files are its user's.
	me.Owned, me.UID, me.GID = true, uint32(os.Getuid()), uint32(os.Getgid())
	switch me.Kind {
	case manifest.KindFile:
		me.Size = int64(len(n.Data))
		me.Hash = e.put(n.Data)
	case manifest.KindDir:
		me.Hash = cas.Sum([]byte("tree of " + p)) // a tree hash: not used by a restore
	case manifest.KindSymlink:
		me.Mode = 0o777
		me.Target = n.Data
		me.Size = int64(len(n.Data))
	}
	return me
}

// actions returns what moves the work tree from old to new: one action
// per path whose node differs (as manifest.Diff reports changes).
func (e *env) actions(old, new tree) []Action {
	all := map[string]bool{}
	for p := range old {
		all[p] = true
	}
	for p := range new {
		all[p] = true
	}
	var as []Action
	for _, p := range sortedPaths(all) {
		o, ook := old[p]
		n, nok := new[p]
		if ook && nok && o == n {
			continue
		}
		a := Action{Path: p}
		if ook {
			a.Old = e.entry(p, o)
		}
		if nok {
			a.New = e.entry(p, n)
		}
		as = append(as, a)
	}
	return as
}

// plan runs NewPlan over a fresh root and fails the test on error.
func (e *env) plan(as []Action) *Plan {
	e.t.Helper()
	p, err := NewPlan(context.Background(), e.root(), as)
	if err != nil {
		e.t.Fatalf("NewPlan: %v", err)
	}
	return p
}

// want lists the paths of actions as Result reports them.
func expectLists(as []Action) (restored, created, deleted []string) {
	for _, a := range as {
		switch {
		case a.New == nil:
			deleted = append(deleted, a.Path)
		case a.Old == nil:
			created = append(created, a.Path)
		default:
			restored = append(restored, a.Path)
		}
	}
	return
}

func eqStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func checkLists(t testing.TB, res *Result, as []Action) {
	t.Helper()
	r, c, d := expectLists(as)
	if !eqStrings(res.Restored, r) {
		t.Errorf("Restored = %q, want %q", res.Restored, r)
	}
	if !eqStrings(res.Created, c) {
		t.Errorf("Created = %q, want %q", res.Created, c)
	}
	if !eqStrings(res.Deleted, d) {
		t.Errorf("Deleted = %q, want %q", res.Deleted, d)
	}
}

var errInjected = errors.New("injected fault (no space left on device)")

// crash is the panic value a hook throws to simulate the process dying
// at a step: nothing of Apply's own clean-up runs.
type crash struct{ step string }

// runCrashing calls f and reports whether it panicked with a crash.
func runCrashing(f func()) (crashed bool) {
	defer func() {
		if v := recover(); v != nil {
			if _, ok := v.(crash); !ok {
				panic(v)
			}
			crashed = true
		}
	}()
	f()
	return false
}

// crashAt returns a Hook that crashes (see crash) at its k-th call,
// counting from 0.
func crashAt(k int) func(string) error {
	n := 0
	return func(s string) error {
		if n++; n-1 == k {
			panic(crash{s})
		}
		return nil
	}
}

// crashedApply builds crashOld in e's work tree and runs the restore to
// crashNew, crashing it at step k; it returns the options Apply ran
// with.
func crashedApply(t testing.TB, e *env, k int) Options {
	t.Helper()
	build(t, e.dir, crashOld)
	p := e.plan(e.actions(crashOld, crashNew))
	o := e.opts()
	o.Hook = crashAt(k)
	if !runCrashing(func() { _, _ = Apply(context.Background(), openRoot(t, e.dir), p, o) }) {
		t.Fatal("Apply did not crash")
	}
	return o
}

// recordSteps returns the step names Apply goes through for the plan
// moving old to new (on a throwaway work tree).
func recordSteps(t testing.TB, old, new tree) []string {
	t.Helper()
	e := newEnv(t)
	build(t, e.dir, old)
	p := e.plan(e.actions(old, new))
	var steps []string
	o := e.opts()
	o.Hook = func(s string) error { steps = append(steps, s); return nil }
	if _, err := Apply(context.Background(), e.root(), p, o); err != nil {
		t.Fatalf("Apply: %v", err)
	}
	checkTree(t, e.dir, new)
	return steps
}

// faultSource wraps a Source and damages what it yields.
type faultSource struct {
	Source
	wrap func(h cas.Hash, r io.Reader) io.Reader
}

func (f faultSource) Open(ctx context.Context, h cas.Hash) (io.Reader, error) {
	r, err := f.Source.Open(ctx, h)
	if err != nil {
		return nil, err
	}
	return f.wrap(h, r), nil
}

// errAtEOF yields all of r and then, instead of io.EOF, err.
type errAtEOF struct {
	r   io.Reader
	err error
}

func (e errAtEOF) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if err == io.EOF {
		return n, e.err
	}
	return n, err
}

// envUnprivileged is set in the environment of a test re-run as an
// unprivileged user.
const envUnprivileged = "TURNBACK_RESTORE_TEST_UNPRIVILEGED"
