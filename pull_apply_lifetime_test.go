package turnback_test

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/turnback/turnback"
	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/internal/remote"
	"github.com/turnback/turnback/internal/testtier"
	"github.com/turnback/turnback/manifest"
)

// TestApplyPulledTwice: two pulls before the apply (the second with new
// turns, a third with nothing new): the apply brings in every pulled
// turn, from the state the folder was at before the first.
func TestApplyPulledTwice(t *testing.T) {
	testtier.Slow(t)
	ctx := t.Context()
	f := newPullFixture(t, "bucket-apply-twice")
	f.turn(f.a, "six.txt", "six")
	f.pushPull()
	f.turn(f.a, "turn.txt", "seven")
	if _, err := remote.Push(ctx, f.a, f.c, remote.PushOptions{}); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		pr, err := remote.Pull(ctx, f.b, f.c, remote.PullOptions{})
		if err != nil || pr.Pending == nil || !slices.Equal(pr.Pending.Turns, []int{6, 7}) {
			t.Fatalf("pull: %+v %v", pr, err)
		}
	}
	if _, err := f.b.Undo(ctx, 1, turnback.UndoOptions{}); !errors.Is(err, turnback.ErrNotApplied) {
		t.Fatalf("undo before the apply: %v", err)
	}
	if _, err := f.b.ApplyPulled(ctx, "", false); err != nil {
		t.Fatal(err)
	}
	wb := f.b.WorkTree()
	for p, want := range map[string]string{"six.txt": "six", "turn.txt": "seven"} {
		if data, err := os.ReadFile(filepath.Join(wb, p)); err != nil || string(data) != want {
			t.Errorf("%s: %q %v", p, data, err)
		}
	}
	if st, err := f.b.Status(ctx); err != nil || len(st.Changes) != 0 {
		t.Fatalf("status after the apply: %+v %v", st, err)
	}
	if _, err := f.b.Undo(ctx, 1, turnback.UndoOptions{}); err != nil {
		t.Fatalf("undo after the apply: %v", err)
	}
	if data, _ := os.ReadFile(filepath.Join(wb, "turn.txt")); string(data) != "turn turn turn turn turn " {
		t.Fatalf("undo of turn 7: turn.txt %q", data)
	}
}

// TestApplyPulledNewTurnFirst: a turn of the session starts before the
// pulled turn is applied, with an edit of the path it changed. As
// docs/remote.md says, the new turn ends the record (apply: nothing to
// do); nothing is lost: undo of both turns is a conflict on the edit,
// and with --force the edit is in the checkpoint.
func TestApplyPulledNewTurnFirst(t *testing.T) {
	testtier.Slow(t)
	ctx := t.Context()
	f := newPullFixture(t, "bucket-apply-newturn")
	f.turn(f.a, "turn.txt", "six")
	f.pushPull()
	wb := f.b.WorkTree()
	must(t, os.WriteFile(filepath.Join(wb, "turn.txt"), []byte("my edit"), 0o644))
	f.turn(f.b, "mine.txt", "mine")
	if p, err := f.b.Pulled(ctx, ""); err != nil || p != nil {
		t.Fatalf("pulled after a new turn: %+v %v", p, err)
	}
	if res, err := f.b.ApplyPulled(ctx, "", false); err != nil || !res.Nothing {
		t.Fatalf("apply after a new turn: %+v %v", res, err)
	}
	if st, err := f.b.Status(ctx); err != nil || len(st.Changes) != 0 {
		t.Fatalf("status: %+v %v", st, err)
	}
	_, err := f.b.Undo(ctx, 2, turnback.UndoOptions{})
	var ce *turnback.ConflictError
	if !errors.As(err, &ce) || len(ce.Result.Conflicts) != 1 || ce.Result.Conflicts[0].Path != "turn.txt" {
		t.Fatalf("undo 2: %v", err)
	}
	res, err := f.b.Undo(ctx, 2, turnback.UndoOptions{Force: true})
	if err != nil {
		t.Fatal(err)
	}
	e, err := manifest.Find(ctx, manifest.NewStoreLoader(f.b.Content()), res.Checkpoint, "turn.txt")
	if err != nil || e == nil || e.Hash != cas.Sum([]byte("my edit")) {
		t.Fatalf("the checkpoint lacks the edit: %+v %v", e, err)
	}
}

// TestPullUnknownSession: a pull of a session the remote does not have
// fails naming it, and leaves no pulled record: undo works as before.
func TestPullUnknownSession(t *testing.T) {
	testtier.Slow(t)
	ctx := t.Context()
	f := newPullFixture(t, "bucket-pull-unknown")
	_, err := remote.Pull(ctx, f.b, f.c, remote.PullOptions{Session: "nosuch"})
	if !errors.Is(err, remote.ErrRemoteSession) || !strings.Contains(err.Error(), "nosuch") {
		t.Fatalf("pull of a session the remote lacks: %v", err)
	}
	for _, s := range []string{"", "nosuch"} {
		if p, err := f.b.Pulled(ctx, s); err != nil || p != nil {
			t.Fatalf("pulled %q after a failed pull: %+v %v", s, p, err)
		}
	}
	if _, err := f.b.Undo(ctx, 1, turnback.UndoOptions{}); err != nil {
		t.Fatalf("undo after a failed pull: %v", err)
	}
}
