package turnback_test

import (
	"os"
	"path/filepath"
	"testing"
)

// TestPullCarriesRuleBlobs: the rules of A's ignored .ignore live in a
// blob that A's record names, not its tree. Push and pull must carry
// it: B's verify finds it whole, and B's apply of the turn knows the
// rules of the state it goes to, so it keeps secret, which they hide,
// and brings made.txt, which the turn made.
func TestPullCarriesRuleBlobs(t *testing.T) {
	t.Parallel()
	f := newPullFixture(t, "bucket-ruleblobs")
	ctx := t.Context()
	f.turnBy(f.a, func(dir string) {
		writeFile(t, dir, ".gitignore", ".ignore\n")
		writeFile(t, dir, ".ignore", "secret\n# only here: TestPullCarriesRuleBlobs\n")
	})
	f.pushPull()
	if v, err := f.b.Verify(ctx); err != nil {
		t.Fatalf("B's verify after the pull: %v %+v", err, v.Problems)
	}
	if err := os.WriteFile(filepath.Join(f.b.WorkTree(), "secret"), []byte("B's own"), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := f.b.ApplyPulled(ctx, "", false)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(filepath.Join(f.b.WorkTree(), "secret")); string(got) != "B's own" {
		t.Fatalf("B's secret after the apply: %q (deleted %q)", got, res.Deleted)
	}
}
