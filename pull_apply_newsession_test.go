package turnback_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/turnback/turnback"
	"github.com/turnback/turnback/internal/remote"
	"github.com/turnback/turnback/internal/testtier"
)

// TestApplyPulledNewSession: a pull brings a session this store never
// had (another agent's, from another copy of the folder). pull --apply
// brings in what its turns changed, and leaves every other path as it
// is: files the session's turns never touched are not deleted, also
// after a second pull of it.
func TestApplyPulledNewSession(t *testing.T) {
	testtier.Slow(t)
	ctx := t.Context()
	f := newPullFixture(t, "bucket-apply-newsession")
	// On a: session x edits turn.txt once.
	x, err := f.a.View(turnback.Options{Session: "x"})
	if err != nil {
		t.Fatal(err)
	}
	f.turn(x, "x.txt", "made by x")
	if _, err := remote.Push(ctx, x, f.c, remote.PushOptions{}); err != nil {
		t.Fatal(err)
	}
	// On b: a file of the user's, captured by a turn of session s.
	wb := f.b.WorkTree()
	f.turn(f.b, "mine.txt", "mine")
	if pr, err := remote.Pull(ctx, f.b, f.c, remote.PullOptions{Session: "x"}); err != nil || pr.Pending == nil {
		t.Fatalf("pull: %+v %v", pr, err)
	}
	// A second turn of x, pulled before the apply.
	f.turn(x, "x2.txt", "x's second")
	if _, err := remote.Push(ctx, x, f.c, remote.PushOptions{}); err != nil {
		t.Fatal(err)
	}
	if pr, err := remote.Pull(ctx, f.b, f.c, remote.PullOptions{Session: "x"}); err != nil || pr.Pending == nil || len(pr.Pending.Turns) != 2 {
		t.Fatalf("second pull: %+v %v", pr, err)
	}
	res, err := f.b.ApplyPulled(ctx, "x", false)
	if err != nil {
		t.Fatalf("apply: %+v %v", res, err)
	}
	for p, want := range map[string]string{"x.txt": "made by x", "x2.txt": "x's second", "mine.txt": "mine", "turn.txt": "turn turn turn turn turn "} {
		if data, err := os.ReadFile(filepath.Join(wb, p)); err != nil || string(data) != want {
			t.Errorf("%s after the apply: %q %v, want %q", p, data, err, want)
		}
	}
}
