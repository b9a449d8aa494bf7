package turnback_test

// review43: a random attack on rule-changing undo, redo and restore
// with the user's edits landing at random steps of the command (also
// in the recapture's window, after the commit step) and commands that
// stop at their commit step, finished by the next one.

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/turnback/turnback"
	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/internal/testtier"
	"github.com/turnback/turnback/manifest/treetest"
)

// TestSettleRandomNothingLost: random sequences of edits, rule changes
// (.gitignore and x/.gitignore), snap, end, undo (some --path, some
// --force), redo and restore. During each undo, redo or restore the
// user may write a file or .gitignore at a random step; some commands
// stop at their commit step (the next one finishes them). After each
// command, every content that was on disk when it started, or that the
// user wrote while it ran, is still on disk or in the store; at the end
// the store verifies. Fast tier: 4 sequences; slow: 40.
func TestSettleRandomNothingLost(t *testing.T) {
	t.Parallel()
	seqs := 4
	if testtier.Enabled() {
		seqs = 40
	}
	seed := settleSeed()
	t.Logf("seed %d (SETTLE_SEED reruns it)", seed)
	for s := range seqs {
		rng := rand.New(rand.NewPCG(seed, uint64(s)))
		t.Run(fmt.Sprint(s), func(t *testing.T) { settleRandomSeq(t, rng, 24, false) })
	}
}

// settleSeed is $SETTLE_SEED, or a random seed.
func settleSeed() uint64 {
	if s, err := strconv.ParseUint(os.Getenv("SETTLE_SEED"), 10, 64); err == nil {
		return s
	}
	return rand.Uint64()
}

// settleRandomSeq runs one sequence; with watch, the Repo watches the
// folder (its captures are incremental).
func settleRandomSeq(t *testing.T, rng *rand.Rand, steps int, watch bool) {
	rt := newRegressTree(t) // (LargeDirFiles 4 finds TestSettleRedoIntoWrittenDir)
	if watch {
		rt.do("watch", rt.repo.Watch(rt.ctx, turnback.WatchOptions{}))
	}
	files := []string{"a", "x/a", "x/b", "x/c", "y/c", "a.log", "x/d.log", "x/y/e"}
	rules := []string{"", "x/\n", "*.log\n", "x/\ny/\n", "x/a\n", "*.log\n!x/d.log\n", "x/y/\n"}
	nested := []string{"", "*\n!.gitignore\n", "b\n"}
	n := 0
	unique := func(p string) string { n++; return fmt.Sprintf("%s v%d", p, n) }
	rt.write(".gitignore", "")
	for _, f := range files {
		rt.write(f, unique(f))
	}
	ids := []string{rt.snap()}
	var log []string
	fail := func(format string, args ...any) {
		t.Helper()
		t.Fatalf("%s\nsteps:\n%s", fmt.Sprintf(format, args...), strings.Join(log, "\n"))
	}
	onDisk := func() map[string]bool {
		tr, err := treetest.Read(rt.dir)
		if err != nil {
			fail("read the folder: %v", err)
		}
		out := map[string]bool{}
		for _, e := range tr {
			if e.Kind == treetest.KindFile {
				out[e.Data] = true
			}
		}
		return out
	}
	// kept fails unless each of want is on disk or in the store.
	kept := func(op string, want map[string]bool) {
		t.Helper()
		now := onDisk()
		for c := range want {
			if now[c] {
				continue
			}
			ok, err := rt.repo.Content().HasContent(rt.ctx, cas.Sum([]byte(c)))
			if err != nil {
				fail("has %q: %v", c, err)
			}
			if !ok {
				fail("after %s, %q is neither on disk nor in the store", op, c)
			}
		}
	}
	// run runs one undo, redo or restore with the user's edit at a
	// random step, or a stop at the commit step.
	run := func(op string, do func() (*turnback.RestoreResult, error)) {
		want := onDisk()
		inject, stop := "", rng.IntN(6) == 0
		var at int
		injectedAtCommit := ""
		if rng.IntN(2) == 0 {
			inject, at = files[rng.IntN(len(files))], rng.IntN(12)
			if rng.IntN(4) == 0 {
				inject = ".gitignore" // the rules rewritten meanwhile
			}
		}
		count := 0
		rt.repo.SetRestoreHook(func(step string) error {
			count++
			if inject != "" && (count == at || step == "commit" && at >= 10) {
				// What the user overwrites is the user's to lose.
				if old, err := os.ReadFile(rt.path(inject)); err == nil {
					delete(want, string(old))
				}
				c := unique(inject)
				if inject == ".gitignore" {
					c = rules[rng.IntN(len(rules))]
				}
				rt.write(inject, c)
				want[c] = true
				if step == "commit" && inject != ".gitignore" {
					injectedAtCommit = inject
				}
				log = append(log, fmt.Sprintf("  (the user writes %s at step %q)", inject, step))
				inject = ""
			}
			if stop && step == "commit" {
				return errors.New("stopped at the commit")
			}
			return nil
		})
		res, err := do()
		rt.repo.SetRestoreHook(nil)
		var ce *turnback.ConflictError
		switch {
		case errors.As(err, &ce):
			log = append(log, "  conflict")
		case errors.Is(err, turnback.ErrPath):
			log = append(log, "  bad path")
		case err != nil && stop:
			log = append(log, "  stopped; status finishes it")
			if _, err := rt.repo.Status(rt.ctx); err != nil {
				fail("status after a stopped %s: %v", op, err)
			}
		case err != nil:
			fail("%s: %v", op, err)
		case !res.Nothing:
			ids = append(ids, res.Result.String(), res.Checkpoint.String())
			// An edit made before the recapture, of a path the command
			// wrote, stays a change (settle.go, keepWritten).
			if p := injectedAtCommit; p != "" && (slices.Contains(res.Restored, p) || slices.Contains(res.Created, p)) {
				st, err := rt.repo.Status(rt.ctx)
				if err != nil {
					fail("status: %v", err)
				}
				listed := false
				for _, c := range st.Changes {
					listed = listed || c.Path == p
				}
				if !listed {
					fail("after %s, the user's edit of %s made before its records were committed is no change: %v", op, p, st.Changes)
				}
			}
		}
		kept(op, want)
	}
	for range steps {
		switch k := rng.IntN(12); {
		case k < 3:
			f := files[rng.IntN(len(files))]
			if rng.IntN(4) == 0 {
				_ = os.Remove(rt.path(f))
				log = append(log, "rm "+f)
			} else {
				rt.write(f, unique(f))
				log = append(log, "write "+f)
			}
		case k < 5:
			if rng.IntN(3) == 0 {
				r := nested[rng.IntN(len(nested))]
				rt.write("x/.gitignore", r)
				log = append(log, fmt.Sprintf("x/.gitignore %q", r))
			} else {
				r := rules[rng.IntN(len(rules))]
				rt.write(".gitignore", r)
				log = append(log, fmt.Sprintf(".gitignore %q", r))
			}
		case k == 5:
			ids = append(ids, rt.snap())
			log = append(log, "snap")
		case k == 6:
			rt.end()
			log = append(log, "end")
		case k < 9:
			o := turnback.UndoOptions{Force: rng.IntN(2) == 0}
			if rng.IntN(3) == 0 {
				o.Paths = []string{[]string{".gitignore", "x", "a"}[rng.IntN(3)]}
			}
			log = append(log, fmt.Sprintf("undo %+v", o))
			run("undo", func() (*turnback.RestoreResult, error) { return rt.repo.Undo(rt.ctx, 1, o) })
		case k == 9:
			o := turnback.RedoOptions{Force: rng.IntN(2) == 0}
			log = append(log, fmt.Sprintf("redo %+v", o))
			run("redo", func() (*turnback.RestoreResult, error) { return rt.repo.Redo(rt.ctx, 1, o) })
		default:
			id := ids[rng.IntN(len(ids))]
			log = append(log, "restore "+id[:12])
			run("restore", func() (*turnback.RestoreResult, error) {
				return rt.repo.Restore(rt.ctx, id, turnback.RestoreOptions{})
			})
		}
	}
	if v, err := rt.repo.Verify(rt.ctx); err != nil {
		fail("verify: %v %+v", err, v.Problems)
	}
}
