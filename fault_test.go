package turnback_test

// Fault injection through the library API: EIO, ENOSPC and short writes
// at every create, write and sync of a pack file during a capture (End),
// an undo and a gc.

import (
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"testing"

	"github.com/turnback/turnback"
	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/internal/testtier"
	"github.com/turnback/turnback/manifest/treetest"
)

// faultCounter fails the nth call of op (n == 0: only counts).
type faultCounter struct {
	op  string
	n   int
	err error

	mu    sync.Mutex
	calls int
	hit   bool
}

func (f *faultCounter) hook(op, _ string) error {
	if op != f.op {
		return nil
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls++
	if f.n > 0 && f.calls == f.n {
		f.hit = true
		return f.err
	}
	return nil
}

func faultContent(seed uint64, n int) []byte {
	r := rand.New(rand.NewPCG(seed, 7))
	out := make([]byte, n)
	for i := range out {
		out[i] = byte(r.Uint32())
	}
	return out
}

// copyTree copies a directory tree (files, modes, mtimes).
func copyTree(t *testing.T, from, to string) {
	t.Helper()
	if err := os.RemoveAll(to); err != nil {
		t.Fatal(err)
	}
	err := filepath.WalkDir(from, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		dst := filepath.Join(to, rel)
		fi, err := d.Info()
		if err != nil {
			return err
		}
		if d.IsDir() {
			return os.MkdirAll(dst, fi.Mode().Perm())
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if err := os.WriteFile(dst, data, fi.Mode().Perm()); err != nil {
			return err
		}
		return os.Chtimes(dst, fi.ModTime(), fi.ModTime())
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestFaultInjectionAPI: for a capture, an undo and a gc, a fault at each
// pack operation makes the operation fail with an error (or, where the
// fault hits nothing it needs, succeed), never panic; a failed operation
// changes neither the work tree nor the recorded turns, leaves no empty
// pack, and once the fault is gone the store verifies and the operation
// succeeds with the expected result.
func TestFaultInjectionAPI(t *testing.T) {
	testtier.Slow(t)
	ctx := t.Context() // not parallel: cas.SetFaults is process-wide
	base := t.TempDir()
	run := filepath.Join(base, "run")
	work, store := filepath.Join(run, "work"), filepath.Join(run, "store")
	tpl := filepath.Join(base, "tpl")
	if err := os.MkdirAll(work, 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(name string, data []byte) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(work, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	open := func() *turnback.Repo {
		t.Helper()
		r, err := turnback.Open(ctx, work, turnback.Options{Store: store})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	// History: three turns over six files, then an open turn whose end
	// (the capture under test) rewrites three of them.
	// Enough names that every tree of the root is a pack value (trees of
	// 256 bytes and more go to packs): undo writes its trees there.
	for i := range 30 {
		write(fmt.Sprintf("small-%02d.txt", i), []byte(fmt.Sprintf("small file %d\n", i)))
	}
	r := open()
	for turn := range 3 {
		if _, err := r.Snap(ctx, fmt.Sprintf("turn %d", turn)); err != nil {
			t.Fatal(err)
		}
		for i := range 6 {
			write(fmt.Sprintf("f%d", i), faultContent(uint64(10*turn+i), 2000+3000*i))
		}
		if _, err := r.End(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := r.Snap(ctx, "under test"); err != nil {
		t.Fatal(err)
	}
	r.Close()
	copyTree(t, run, tpl)

	type op struct {
		name  string
		prep  func()
		do    func(*turnback.Repo) error
		check func(*turnback.Repo)
	}
	ops := []op{
		{"capture", func() {
			for i := range 3 {
				write(fmt.Sprintf("f%d", i), faultContent(uint64(900+i), 50000+i))
			}
		}, func(r *turnback.Repo) error { _, err := r.End(ctx); return err }, func(r *turnback.Repo) {
			turns, _, err := r.Turns(ctx)
			if err != nil || len(turns) != 4 || turns[len(turns)-1].Open() && turns[0].Open() {
				t.Errorf("after the capture: %d turns, %v", len(turns), err)
			}
		}},
		{"undo", func() {}, func(r *turnback.Repo) error { _, err := r.Undo(ctx, 2, turnback.UndoOptions{}); return err }, func(r *turnback.Repo) {
			// Two turns back (the open turn, empty, may or may not count
			// as one): f5 is its first or second version, and the folder
			// is exactly the state the undo recorded.
			data, _ := os.ReadFile(filepath.Join(work, "f5"))
			if string(data) != string(faultContent(5, 2000+3000*5)) && string(data) != string(faultContent(15, 2000+3000*5)) {
				t.Error("after undo 2, f5 is not back to an earlier version")
			}
			st, err := r.Status(ctx)
			if err != nil || len(st.Changes) != 0 {
				t.Errorf("after undo the folder differs from what it recorded: %v %+v", err, st)
			}
		}},
		{"gc", func() {}, func(r *turnback.Repo) error {
			_, err := r.GC(ctx, turnback.GCOptions{Keep: 1, OlderThan: -1})
			return err
		}, func(*turnback.Repo) {}},
	}
	kinds := map[string]error{"EIO": syscall.EIO, "ENOSPC": syscall.ENOSPC, "short": cas.ErrInjectedShortWrite}
	runs := 0
	for _, o := range ops {
		for _, fop := range []string{"create", "write", "sync", "syncdir"} {
			copyTree(t, tpl, run)
			o.prep()
			counter := &faultCounter{op: fop}
			remove := cas.SetFaults(counter.hook)
			r := open()
			if err := o.do(r); err != nil {
				t.Fatalf("%s without faults: %v", o.name, err)
			}
			r.Close()
			remove()
			n := counter.calls
			t.Logf("%s: %d calls of %s", o.name, n, fop)
			for kind, ferr := range kinds {
				if kind == "short" && fop != "write" {
					continue
				}
				for k := 1; k <= n; k++ {
					runs++
					name := fmt.Sprintf("%s: %s#%d %s", o.name, fop, k, kind)
					copyTree(t, tpl, run)
					o.prep()
					workBefore := treetest.MustRead(t, work)
					plan := &faultCounter{op: fop, n: k, err: ferr}
					remove := cas.SetFaults(plan.hook)
					r := open()
					turnsBefore, _, err := r.Turns(ctx)
					if err != nil {
						t.Fatal(err)
					}
					err = o.do(r)
					remove()
					if err == nil && plan.hit {
						t.Errorf("%s: succeeded although a pack operation failed", name)
					}
					if err != nil {
						if kind == "ENOSPC" && !errors.Is(err, turnback.ErrNoSpace) {
							t.Errorf("%s: %v is not ErrNoSpace", name, err)
						}
						if d := treetest.Diff(treetest.MustRead(t, work), workBefore); len(d) > 0 {
							t.Errorf("%s failed (%v) but changed the work tree: %q", name, err, d)
						}
						turnsAfter, _, terr := r.Turns(ctx)
						// (gc forgets turns before it gives space back; a
						// failure there keeps what retention keeps.)
						if o.name != "gc" && (terr != nil || len(turnsAfter) != len(turnsBefore) || turnsAfter[len(turnsAfter)-1].Open() != turnsBefore[len(turnsBefore)-1].Open()) {
							t.Errorf("%s failed (%v) but the turns changed: %d -> %d (%v)", name, err, len(turnsBefore), len(turnsAfter), terr)
						}
						// Once the fault is gone it works.
						if err := o.do(r); err != nil {
							t.Fatalf("%s: again without the fault: %v", name, err)
						}
					}
					o.check(r)
					res, err := r.Verify(ctx)
					if err != nil {
						t.Fatalf("%s: verify: %v %+v", name, err, res)
					}
					r.Close()
					packs, _ := filepath.Glob(filepath.Join(store, "db", "*.pack"))
					for _, p := range packs {
						if fi, err := os.Stat(p); err == nil && fi.Size() <= int64(len("turnback pack 1\n")) {
							t.Errorf("%s: empty pack %s left", name, filepath.Base(p))
						}
					}
				}
			}
		}
	}
	t.Logf("%d runs with a fault", runs)
}
