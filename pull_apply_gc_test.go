package turnback_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/turnback/turnback"
	"github.com/turnback/turnback/internal/remote"
)

// TestApplyPulledAfterGC attacks the pulled record's lifetime: a gc
// between the pull and the apply must keep the state the folder was at
// (the apply's conflict check reads it), also when no turn it keeps and
// no later capture holds that state any more.
func TestApplyPulledAfterGC(t *testing.T) {
	f := newPullFixture(t, "bucket-apply-gc")
	ctx := t.Context()
	f.turn(f.a, "turn.txt", "six")
	f.turn(f.a, "turn.txt", "seven")
	if _, err := remote.Push(ctx, f.a, f.c, remote.PushOptions{}); err != nil {
		t.Fatal(err)
	}
	pr, err := remote.Pull(ctx, f.b, f.c, remote.PullOptions{})
	if err != nil || pr.Pending == nil || len(pr.Pending.Turns) != 2 {
		t.Fatalf("pull: %+v %v", pr, err)
	}
	// Another session's turn moves the store's latest capture off the
	// state the folder was at.
	other, err := f.b.View(turnback.Options{Session: "other"})
	if err != nil {
		t.Fatal(err)
	}
	mine := filepath.Join(f.b.WorkTree(), "mine.txt")
	if err := os.WriteFile(mine, []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	f.turn(other, "other.txt", "other")
	if _, err := f.b.GC(ctx, turnback.GCOptions{Keep: 1, OlderThan: -1}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.b.Status(ctx); err != nil {
		t.Fatalf("status after gc: %v", err)
	}
	res, err := f.b.ApplyPulled(ctx, "", false)
	if err != nil {
		t.Fatalf("apply after gc: %+v %v", res, err)
	}
	got, _ := os.ReadFile(filepath.Join(f.b.WorkTree(), "turn.txt"))
	kept, _ := os.ReadFile(mine)
	if string(got) != "seven" || string(kept) != "mine" {
		t.Fatalf("after the apply: turn.txt %q, mine.txt %q", got, kept)
	}
	if v, err := f.b.Verify(ctx); err != nil || len(v.Problems) > 0 {
		t.Fatalf("verify: %+v %v", v, err)
	}
}
