package restore

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/turnback/turnback/internal/testtier"
)

// TestFallbackWithoutRenameat2 runs the race, crash and rollback tests
// again with renameat2 unavailable (as on other systems and some
// filesystems): the live entry is renamed aside and the new one renamed
// in. (The flag is reset when every subtest, parallel ones included, is
// done; top-level tests do not run alongside this one.)
func TestFallbackWithoutRenameat2(t *testing.T) {
	testtier.Slow(t)
	noRenameat2 = true
	t.Cleanup(func() { noRenameat2 = false })
	t.Run("edits after the commit point", TestApplyEditAfterCommitSaved)
	t.Run("crash between exchange and settle", TestRecoverAfterExchangeCrash)
	t.Run("shapes", TestApplyShapes)
	t.Run("crash matrix", TestCrashMatrix)
	t.Run("rollback", TestRollbackKeepsLaterEdits)
}

// TestFallbackCrashBetweenRenames: the fallback stopped after renaming
// the live file aside and before renaming the staged one in (the path is
// empty): recovery completes the replacement.
func TestFallbackCrashBetweenRenames(t *testing.T) {
	e := newEnv(t)
	build(t, e.dir, raceOld)
	p := e.plan(e.actions(raceOld, raceNew))
	o := e.opts()
	o.Hook = func(step string) error {
		if step == "place a" {
			return errInjected
		}
		return nil
	}
	if _, err := Apply(context.Background(), e.root(), p, o); !errors.Is(err, errInjected) {
		t.Fatalf("Apply: %v", err)
	}
	j := &journal{}
	if ok, err := readJSON(filepath.Join(e.jdir, journalName), j); !ok || err != nil {
		t.Fatalf("journal: %v %v", ok, err)
	}
	// Do the fallback's first rename by hand, as a crash would leave it.
	i := -1
	for k, a := range j.Actions {
		if a.Path == "a" {
			i = k
		}
	}
	if err := os.Rename(filepath.Join(e.dir, "a"), filepath.Join(e.dir, heldName(j.ID, i))); err != nil {
		t.Fatal(err)
	}
	if _, err := Recover(context.Background(), e.root(), e.opts()); err != nil {
		t.Fatalf("Recover: %v", err)
	}
	checkTree(t, e.dir, raceNew)
	checkClean(t, e)
}
