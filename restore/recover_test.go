package restore

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/turnback/turnback/internal/testtier"
)

// crashOld and crashNew differ in about 30 actions of every shape.
var (
	crashOld = tree{
		"untouched":     file("never touched", 0o644),
		"mod":           file("modify me", 0o644),
		"mod-empty":     file("becomes empty", 0o644),
		"modeonly":      file("mode only", 0o644),
		"del":           file("delete me", 0o644),
		"dl":            link("del"),
		"retarget":      link("a"),
		"f2d":           file("file to dir", 0o644),
		"d2f":           dir(0o755),
		"d2f/x":         file("x", 0o644),
		"d2f/sub":       dir(0o755),
		"d2f/sub/y":     file("y", 0o644),
		"f2l":           file("file to link", 0o644),
		"l2f":           link("somewhere"),
		"d2l":           dir(0o755),
		"d2l/z":         file("z", 0o644),
		"l2d":           link("d2l"),
		"tree":          dir(0o755),
		"tree/keep":     file("keep", 0o644),
		"tree/ro":       dir(0o755),
		"tree/ro/a":     file("a", 0o644),
		"tree/gone":     dir(0o755),
		"tree/gone/g":   file("g", 0o644),
		"tree/gone/e":   dir(0o700),
		"tree/gone/lnk": link("g"),
		"dmode":         dir(0o700),
	}
	crashNew = tree{
		"untouched":    file("never touched", 0o644),
		"mod":          file("modified!", 0o644),
		"mod-empty":    file("", 0o644),
		"modeonly":     file("mode only", 0o750),
		"retarget":     link("b/c"),
		"f2d":          dir(0o755),
		"f2d/in":       file("in f2d", 0o644),
		"f2d/deeper":   dir(0o711),
		"f2d/deeper/q": file("q", 0o600),
		"d2f":          file("dir to file", 0o644),
		"f2l":          link("mod"),
		"l2f":          file("link to file", 0o755),
		"d2l":          link("tree"),
		"l2d":          dir(0o755),
		"l2d/w":        file("w", 0o644),
		"tree":         dir(0o755),
		"tree/keep":    file("keep", 0o644),
		"tree/ro":      dir(0o555),
		"tree/ro/a":    file("a2", 0o644),
		"tree/ro/b":    file("b", 0o444),
		"new":          dir(0o755),
		"new/empty":    dir(0o755),
		"new/f":        file("new file", 0o644),
		"new/l":        link("f"),
		"dmode":        dir(0o755),
		"top":          file("", 0o600),
	}
)

// TestCrashMatrix stops the restore at every step, once with an error
// from the step (Apply returns) and once with a crash (nothing of Apply
// runs any more), then runs Recover on a fresh root: the tree is all old
// (stopped before the commit point) or all new (at or after it).
func TestCrashMatrix(t *testing.T) {
	testtier.Slow(t)
	as := newEnv(t).actions(crashOld, crashNew)
	if len(as) < 28 {
		t.Fatalf("only %d actions", len(as))
	}
	steps := recordSteps(t, crashOld, crashNew)
	journalAt := -1
	for i, s := range steps {
		if s == "journal" {
			journalAt = i
		}
	}
	if journalAt < 5 || steps[len(steps)-1] != "clear journal" || steps[len(steps)-2] != "commit" {
		t.Fatalf("unexpected steps %q", steps)
	}
	for k, step := range steps {
		for _, mode := range []string{"error", "crash"} {
			t.Run(fmt.Sprintf("%02d %s %s", k, mode, step), func(t *testing.T) {
				t.Parallel()
				e := newEnv(t)
				build(t, e.dir, crashOld)
				times := mtimes(t, e.dir)
				p := e.plan(e.actions(crashOld, crashNew))
				if len(p.Actions) != len(as) {
					t.Fatalf("plan: %+v", p)
				}
				o := e.opts()
				n := 0
				o.Hook = func(s string) error {
					if n++; n-1 == k {
						if s != step {
							t.Fatalf("step %d is %q, recorded %q", k, s, step)
						}
						if mode == "crash" {
							panic(crash{s})
						}
						return errInjected
					}
					return nil
				}
				var err error
				crashed := runCrashing(func() { _, err = Apply(context.Background(), openRoot(t, e.dir), p, o) })
				if mode == "crash" && !crashed {
					t.Fatalf("no crash at %q", step)
				}
				if mode == "error" && !errors.Is(err, errInjected) {
					t.Fatalf("Apply = %v, want the injected error", err)
				}
				committed := k > journalAt
				if committed != journalExists(t, e) {
					t.Errorf("journal exists = %v after stopping at %q", !committed, step)
				}
				staged := len(stagingLeftovers(t, e.dir)) > 0

				did, err := Recover(context.Background(), openRoot(t, e.dir), e.opts())
				if err != nil {
					t.Fatalf("Recover: %v", err)
				}
				wantDid := committed || (mode == "crash")
				if did != wantDid {
					t.Errorf("Recover did something = %v, want %v (staged files were left: %v)", did, wantDid, staged)
				}
				if committed {
					checkTree(t, e.dir, crashNew)
					wantCommits := 1
					if step == "clear journal" {
						// Commit ran, then the process died before the
						// journal went: Recover commits again (Commit
						// must be idempotent).
						wantCommits = 2
					}
					if got := e.commitCount(); got != wantCommits {
						t.Errorf("Commit called %d times, want %d", got, wantCommits)
					}
					for _, m := range e.commits {
						if !bytes.Equal(m, o.Meta) {
							t.Errorf("Commit meta = %q, want %q", m, o.Meta)
						}
					}
				} else {
					checkTree(t, e.dir, crashOld)
					checkMtimes(t, e.dir, times)
					if got := e.commitCount(); got != 0 {
						t.Errorf("Commit called %d times before the commit point", got)
					}
				}
				if times["untouched"] != mtimes(t, e.dir)["untouched"] {
					t.Error("an untouched file's mtime changed")
				}
				checkClean(t, e)
				if did, err := Recover(context.Background(), openRoot(t, e.dir), e.opts()); did || err != nil {
					t.Errorf("second Recover = %v, %v", did, err)
				}
			})
		}
	}
}

// TestCrashDuringRecovery crashes the restore after its commit point and
// then crashes Recover at each of its steps: a further Recover still
// converges on the new tree.
func TestCrashDuringRecovery(t *testing.T) {
	testtier.Slow(t)
	steps := recordSteps(t, crashOld, crashNew)
	journalAt := -1
	for i, s := range steps {
		if s == "journal" {
			journalAt = i
		}
	}
	// Stop Apply right after the journal, half way through and before
	// the commit; stop Recover at every step.
	removeAt, placeAt := -1, -1
	for i, s := range steps {
		if removeAt < 0 && strings.HasPrefix(s, "remove ") {
			removeAt = i
		}
		if strings.HasPrefix(s, "place ") {
			placeAt = i
		}
	}
	for _, k := range []int{journalAt + 1, (removeAt + placeAt) / 2} {
		// Recover runs every step after the journal again (each looks
		// at the disk first).
		for m := 0; m < len(steps)-journalAt-1; m++ {
			t.Run(fmt.Sprintf("apply %02d recover %02d", k, m), func(t *testing.T) {
				t.Parallel()
				e := newEnv(t)
				o := crashedApply(t, e, k)
				ro := e.opts()
				ro.Meta = []byte("ignored: the journal's meta counts")
				ro.Hook = crashAt(m)
				// Recover may run fewer steps than Apply had left: a
				// "settle" step happens only where an exchange or removal
				// still has something to settle.
				if runCrashing(func() { _, _ = Recover(context.Background(), openRoot(t, e.dir), ro) }) {
					did, err := Recover(context.Background(), openRoot(t, e.dir), e.opts())
					if !did || err != nil {
						t.Fatalf("Recover = %v, %v", did, err)
					}
				} else if m < len(steps)-journalAt-1-countPrefix(steps, "settle ") {
					t.Fatalf("Recover did not reach step %d", m)
				}
				checkTree(t, e.dir, crashNew)
				checkClean(t, e)
				for _, meta := range e.commits {
					if !bytes.Equal(meta, o.Meta) {
						t.Errorf("Commit meta = %q, want %q", meta, o.Meta)
					}
				}
				if e.commitCount() == 0 {
					t.Error("never committed")
				}
			})
		}
	}
}

func openRoot(t testing.TB, dir string) *os.Root {
	t.Helper()
	r, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

func TestRecoverNothingToDo(t *testing.T) {
	e := newEnv(t)
	build(t, e.dir, crashOld)
	did, err := Recover(context.Background(), e.root(), e.opts())
	if did || err != nil {
		t.Errorf("Recover = %v, %v", did, err)
	}
	checkTree(t, e.dir, crashOld)
	if e.commitCount() != 0 {
		t.Error("Commit called")
	}
}

// TestRecoverStagingListOnlyRemovesStagingFiles: a staging list names
// user files (by mistake or by tampering) and paths outside the work
// tree; Recover deletes only files named like staging files, inside.
func TestRecoverStagingListOnlyRemovesStagingFiles(t *testing.T) {
	e := newEnv(t)
	outside := tempDir(t)
	build(t, e.dir, tree{"user.txt": file("precious", 0o644), "d": dir(0o755), "d/notes": file("notes", 0o644),
		"d/.turnback-abc123-0": file("staged", 0o600), ".turnback-abc123-1": file("staged", 0o600),
		"lnk": link(outside)})
	build(t, outside, tree{".turnback-abc123-2": file("outside", 0o600), "victim": file("v", 0o644)})
	rel, err := filepath.Rel(e.dir, outside)
	if err != nil {
		t.Fatal(err)
	}
	st := staging{ID: "abc123", Files: []string{"user.txt", "d/notes", "d/.turnback-abc123-0", ".turnback-abc123-1",
		"missing/.turnback-abc123-9", filepath.ToSlash(rel) + "/.turnback-abc123-2", outside + "/.turnback-abc123-2",
		"lnk/.turnback-abc123-2", "lnk/victim", "d", ""}}
	if err := writeDurable(e.jdir, stagingName, st); err != nil {
		t.Fatal(err)
	}
	did, err := Recover(context.Background(), e.root(), e.opts())
	if !did || err != nil {
		t.Fatalf("Recover = %v, %v", did, err)
	}
	checkTree(t, e.dir, tree{"user.txt": file("precious", 0o644), "d": dir(0o755), "d/notes": file("notes", 0o644), "lnk": link(outside)})
	checkTree(t, outside, tree{".turnback-abc123-2": file("outside", 0o600), "victim": file("v", 0o644)})
	checkClean(t, e)
	if e.commitCount() != 0 {
		t.Error("Commit called for an uncommitted restore")
	}
}

// TestRecoverTwiceAfterSuccess runs the finishing step again over a
// completed restore (its journal written back by hand, as if the process
// died right before removing it): same tree, no error, Commit again.
func TestRecoverTwiceAfterSuccess(t *testing.T) {
	e := newEnv(t)
	build(t, e.dir, crashOld)
	p := e.plan(e.actions(crashOld, crashNew))
	o := e.opts()
	var saved []byte
	o.Hook = func(s string) error {
		if s == "clear journal" {
			var err error
			saved, err = os.ReadFile(filepath.Join(e.jdir, journalName))
			return err
		}
		return nil
	}
	res, err := Apply(context.Background(), e.root(), p, o)
	if err != nil {
		t.Fatal(err)
	}
	checkTree(t, e.dir, crashNew)
	checkClean(t, e)
	var j journal
	if err := json.Unmarshal(saved, &j); err != nil || len(j.Actions) != len(p.Actions) || !bytes.Equal(j.Meta, o.Meta) {
		t.Fatalf("saved journal: %v, %d actions, meta %q", err, len(j.Actions), j.Meta)
	}
	time.Sleep(10 * time.Millisecond) // so that a rewrite would show in mtimes
	times := mtimes(t, e.dir)
	for i := 0; i < 2; i++ {
		if err := os.WriteFile(filepath.Join(e.jdir, journalName), saved, 0o600); err != nil {
			t.Fatal(err)
		}
		did, err := Recover(context.Background(), openRoot(t, e.dir), e.opts())
		if !did || err != nil {
			t.Fatalf("Recover %d = %v, %v", i, did, err)
		}
		checkTree(t, e.dir, crashNew)
		checkMtimes(t, e.dir, times)
		checkClean(t, e)
	}
	if e.commitCount() != 3 {
		t.Errorf("Commit called %d times, want 3", e.commitCount())
	}
	for _, m := range e.commits {
		if !bytes.Equal(m, o.Meta) {
			t.Errorf("meta %q", m)
		}
	}
	if len(res.Written) == 0 {
		t.Error("nothing written")
	}
}

// TestRecoverBadJournal: a damaged journal, or one naming paths outside
// the work tree, is an error and changes nothing.
func TestRecoverBadJournal(t *testing.T) {
	outside := tempDir(t)
	rel := func(e *env) string {
		r, err := filepath.Rel(e.dir, outside)
		if err != nil {
			t.Fatal(err)
		}
		return filepath.ToSlash(r)
	}
	cases := map[string]func(e *env) string{
		"not json": func(*env) string { return "{\"v\":1,\"actions\":[" },
		"escaping path": func(e *env) string {
			return `{"v":1,"id":"x","actions":[{"path":"f","old":{"kind":"file","mode":420,"size":1,"hash":"` + e.put("f").String() + `"}},` +
				`{"path":"` + rel(e) + `/victim","old":{"kind":"file","mode":420,"size":1,"hash":"` + e.put("v").String() + `"}}]}`
		},
		"absolute path": func(e *env) string {
			return `{"v":1,"id":"x","actions":[{"path":"` + outside + `/victim","old":{"kind":"file","mode":420,"size":1}}]}`
		},
		"escaping stage": func(e *env) string {
			return `{"v":1,"id":"x","actions":[{"path":"g","new":{"kind":"file","mode":420,"size":1,"hash":"` + e.put("s").String() +
				`"},"stage":"` + rel(e) + `/.turnback-x-0"}]}`
		},
		"unknown kind": func(e *env) string {
			return `{"v":1,"id":"x","actions":[{"path":"f","old":{"kind":"socket","mode":420}}]}`
		},
	}
	for name, journalText := range cases {
		t.Run(name, func(t *testing.T) {
			e := newEnv(t)
			build(t, e.dir, tree{"f": file("f", 0o644)})
			makeWritable(outside)
			os.RemoveAll(outside)
			os.Mkdir(outside, 0o755)
			build(t, outside, tree{"victim": file("v", 0o644), ".turnback-x-0": file("s", 0o644)})
			if err := os.WriteFile(filepath.Join(e.jdir, journalName), []byte(journalText(e)), 0o600); err != nil {
				t.Fatal(err)
			}
			_, err := Recover(context.Background(), e.root(), e.opts())
			if err == nil {
				t.Error("Recover accepted the journal")
			}
			t.Logf("Recover: %v", err)
			checkTree(t, outside, tree{"victim": file("v", 0o644), ".turnback-x-0": file("s", 0o644)})
			if name != "escaping stage" {
				checkTree(t, e.dir, tree{"f": file("f", 0o644)})
			}
			if e.commitCount() != 0 {
				t.Error("Commit called")
			}
		})
	}
}

func countPrefix(steps []string, prefix string) int {
	n := 0
	for _, s := range steps {
		if strings.HasPrefix(s, prefix) {
			n++
		}
	}
	return n
}
