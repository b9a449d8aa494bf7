package turnback_test

// Review 42's attacks on the rules of ignored ignore files that a
// state's record keeps (model.SkipInfo.RuleFiles, 60bb6d5 and 008ec96)
// that hold.

import (
	"os"
	"testing"
)

// TestPullCarriesIgnoredRules: machine A's turn adds secret to its
// ignored .ignore. B applies the pulled turn: the state it goes to
// ignores secret (A's record keeps the rules), so B's secret stays.
func TestPullCarriesIgnoredRules(t *testing.T) {
	t.Parallel()
	f := newPullFixture(t, "bucket-rulefiles")
	ctx := t.Context()
	f.turnBy(f.a, func(dir string) {
		writeFile(t, dir, ".gitignore", ".ignore\n")
		writeFile(t, dir, "secret", "shared")
	})
	f.pushPull()
	if _, err := f.b.ApplyPulled(ctx, "", false); err != nil {
		t.Fatal(err)
	}
	if got := rulesRead(t, f.b.WorkTree(), "secret"); got != "shared" {
		t.Fatalf("B's secret after the first apply: %q", got)
	}
	f.turnBy(f.a, func(dir string) {
		writeFile(t, dir, ".ignore", "secret\n")
		writeFile(t, dir, "turn.txt", "seven")
	})
	f.pushPull()
	res, err := f.b.ApplyPulled(ctx, "", false)
	if err != nil {
		t.Fatal(err)
	}
	if got := rulesRead(t, f.b.WorkTree(), "turn.txt"); got != "seven" {
		t.Fatalf("turn.txt on B after the apply: %q", got)
	}
	if _, err := os.Lstat(f.b.WorkTree() + "/secret"); err != nil {
		t.Fatalf("secret, ignored in A's state B went to, is gone on B: %v (deleted %q)", err, res.Deleted)
	}
}

// rulesRead returns the content of rel below root ("" if unreadable).
func rulesRead(t *testing.T, root, rel string) string {
	t.Helper()
	b, _ := os.ReadFile(root + "/" + rel)
	return string(b)
}
