package turnback_test

// A random attack on the state undo, redo and restore leave when the
// ignore rules change: after each one, with nothing edited since, the
// folder captured again must be that state.

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/turnback/turnback"
	"github.com/turnback/turnback/internal/testtier"
)

// TestRandomResultIsTheFolder runs random sequences of edits (files
// under x/ and y/, logs, .gitignore rules that ignore them or not), snap,
// end, undo, redo and restore of a state recorded before. After each
// undo, redo or restore that went ahead, the folder captured again is
// the state it left: status lists no change (undo, redo), or its
// capture is the restore's result. Fast tier: 6 sequences; slow: 60.
func TestRandomResultIsTheFolder(t *testing.T) {
	t.Parallel()
	seqs := 6
	if testtier.Enabled() {
		seqs = 60
	}
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	for s := range seqs {
		rng := rand.New(rand.NewPCG(seed, uint64(s)))
		t.Run(fmt.Sprint(s), func(t *testing.T) { randomResultSeq(t, rng, 16) })
	}
}

func randomResultSeq(t *testing.T, rng *rand.Rand, steps int) {
	rt := newRegressTree(t)
	files := []string{"a", "x/a", "x/b", "y/c", "a.log", "x/d.log"}
	rules := []string{"", "x/\n", "*.log\n", "x/\ny/\n", "x/a\n", "*.log\n!x/d.log\n"}
	rt.write(".gitignore", "")
	for _, f := range files {
		rt.write(f, f+" 0")
	}
	var ids []string
	ids = append(ids, rt.snap())
	var log []string
	fail := func(format string, args ...any) {
		t.Helper()
		t.Fatalf("%s\nsteps:\n%v", fmt.Sprintf(format, args...), log)
	}
	check := func(op string, res *turnback.RestoreResult, err error, whole bool) {
		t.Helper()
		var ce *turnback.ConflictError
		if errors.As(err, &ce) {
			return
		}
		if err != nil {
			fail("%s: %v", op, err)
		}
		if res.Nothing {
			return
		}
		ids = append(ids, res.Result.String(), res.Checkpoint.String())
		st, err := rt.repo.Status(rt.ctx)
		if err != nil {
			fail("status: %v", err)
		}
		if whole && st.Current != res.Result {
			fail("%s left %s, but the folder is %s", op, res.Result.Short(), st.Current.Short())
		}
		if !whole && (st.Base != res.Result || len(st.Changes) > 0) {
			fail("%s left %s; status: base %s, changes %v", op, res.Result.Short(), st.Base.Short(), st.Changes)
		}
	}
	for i := range steps {
		switch k := rng.IntN(10); {
		case k < 3:
			f := files[rng.IntN(len(files))]
			if rng.IntN(4) == 0 {
				_ = os.Remove(rt.path(f))
				log = append(log, "rm "+f)
			} else {
				rt.write(f, fmt.Sprintf("%s %d", f, i))
				log = append(log, "write "+f)
			}
		case k < 5:
			r := rules[rng.IntN(len(rules))]
			rt.write(".gitignore", r)
			log = append(log, fmt.Sprintf("rules %q", r))
		case k == 5:
			ids = append(ids, rt.snap())
			log = append(log, "snap")
		case k == 6:
			rt.end()
			log = append(log, "end")
		case k == 7:
			// A snap first: the undo then closes that turn and reads
			// everything. (A scoped read takes what it does not read
			// from the newest state: docs/contract.md.)
			ids = append(ids, rt.snap())
			log = append(log, "snap", "undo")
			res, err := rt.repo.Undo(rt.ctx, 1, turnback.UndoOptions{Force: true})
			check("undo", res, err, false)
		case k == 8:
			ids = append(ids, rt.snap())
			log = append(log, "snap", "redo")
			res, err := rt.repo.Redo(rt.ctx, 1, turnback.RedoOptions{Force: true})
			check("redo", res, err, false)
		default:
			id := ids[rng.IntN(len(ids))]
			log = append(log, "restore "+id[:12])
			res, err := rt.repo.Restore(rt.ctx, id, turnback.RestoreOptions{})
			check("restore", res, err, true)
		}
	}
}
