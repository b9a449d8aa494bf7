package restore

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/turnback/turnback/internal/testtier"
)

// TestRollbackMatrix stops a restore at every step after its commit
// point (a crash), then rolls it back, for every fourth of them also
// crashing the rollback at a few of its steps first: the tree is exactly the old one, nothing
// is committed, and no staging file or journal is left.
func TestRollbackMatrix(t *testing.T) {
	testtier.Slow(t)
	steps := recordSteps(t, crashOld, crashNew)
	journalAt := -1
	for i, s := range steps {
		if s == "journal" {
			journalAt = i
		}
	}
	for k := journalAt + 1; k < len(steps)-1; k++ { // not at "clear journal": the commit is done
		crashBacks := []int{-1}
		if (k-journalAt)%4 == 1 {
			crashBacks = append(crashBacks, 0, 3, 9)
		}
		for _, crashBack := range crashBacks {
			t.Run(fmt.Sprintf("apply %02d %s rollback %d", k, steps[k], crashBack), func(t *testing.T) {
				t.Parallel()
				e := newEnv(t)
				crashedApply(t, e, k)
				if strings.HasPrefix(steps[k], "commit") {
					return
				}
				if crashBack >= 0 {
					ro := e.opts()
					ro.Hook = crashAt(crashBack)
					runCrashing(func() { _, _, _ = Rollback(context.Background(), openRoot(t, e.dir), ro) })
				}
				// Finish the rollback (or, if it crashed before its own
				// commit point, roll back again).
				_, _, err := Rollback(context.Background(), openRoot(t, e.dir), e.opts())
				if err != nil {
					t.Fatalf("Rollback: %v", err)
				}
				if e.commitCount() != 0 {
					t.Errorf("a rolled back restore committed its metadata")
				}
				checkTree(t, e.dir, crashOld)
				checkClean(t, e)
			})
		}
	}
}

// TestRollbackKeepsLaterEdits: a path edited after the interrupted
// restore is left as it is by the rollback and reported.
func TestRollbackKeepsLaterEdits(t *testing.T) {
	e := newEnv(t)
	build(t, e.dir, crashOld)
	p := e.plan(e.actions(crashOld, crashNew))
	o := e.opts()
	o.Hook = func(s string) error {
		if s == "place tree/ro/a" {
			return errInjected
		}
		return nil
	}
	if _, err := Apply(context.Background(), openRoot(t, e.dir), p, o); !errors.Is(err, ErrUnfinished) {
		t.Fatalf("Apply: %v, want unfinished", err)
	}
	writeFile("mod", "USER")(t, e.dir)
	res, found, err := Rollback(context.Background(), openRoot(t, e.dir), e.opts())
	if err != nil || !found {
		t.Fatalf("Rollback: %v %v", found, err)
	}
	checkTree(t, e.dir, crashOld.Merge(tree{"mod": file("USER", 0o644)}))
	checkClean(t, e)
	if len(res.Kept) != 1 || res.Kept[0].Path != "mod" {
		t.Errorf("kept %v, want mod", res.Kept)
	}
}

// TestRollbackAfterCommit: a restore stopped after it committed the
// caller's metadata (before its journal went) is finished by Rollback,
// never rolled back: the metadata says it happened.
func TestRollbackAfterCommit(t *testing.T) {
	steps := recordSteps(t, crashOld, crashNew)
	k := len(steps) - 1
	if steps[k] != "clear journal" {
		t.Fatalf("last step %q", steps[k])
	}
	e := newEnv(t)
	crashedApply(t, e, k)
	if e.commitCount() == 0 {
		t.Fatal("the crashed restore committed nothing")
	}
	_, found, err := Rollback(context.Background(), openRoot(t, e.dir), e.opts())
	if !found || !errors.Is(err, ErrCommitted) {
		t.Fatalf("Rollback: %v %v, want ErrCommitted", found, err)
	}
	checkTree(t, e.dir, crashNew)
	checkClean(t, e)
}
