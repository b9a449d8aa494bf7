package remote

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/turnback/turnback"
	"github.com/turnback/turnback/cas/s3"
	"github.com/turnback/turnback/cas/s3/s3test"
	"github.com/turnback/turnback/internal/testhook"
	"github.com/turnback/turnback/manifest/treetest"
)

// pullFixture: A records 5 turns of session "s" and pushes; B clones.
type pullFixture struct {
	t      *testing.T
	srv    *s3test.Server
	c      *s3.Client
	a, b   *turnback.Repo
	states []treetest.Tree
}

func newPullFixture(t *testing.T, bucket string) *pullFixture {
	srv := s3test.Start(t)
	ctx := t.Context()
	a, states, _ := rtSession(t, "s")
	c := srv.Client(t, bucket, "")
	if _, err := Push(ctx, a, c, PushOptions{}); err != nil {
		t.Fatal(err)
	}
	dirB, storeB := t.TempDir(), filepath.Join(t.TempDir(), "store")
	if _, err := Clone(ctx, c, srv.Config(bucket, ""), dirB, turnback.Options{Store: storeB, Session: "s"}); err != nil {
		t.Fatal(err)
	}
	b, err := turnback.Open(ctx, dirB, turnback.Options{Store: storeB, Session: "s"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return &pullFixture{t: t, srv: srv, c: c, a: a, b: b, states: states}
}

// stacks describes r's session: its turns oldest first, then "|" and
// the turns on its redo stack.
func stacks(t *testing.T, r *turnback.Repo) string {
	t.Helper()
	turns, redo, err := r.Turns(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	var parts []string
	for i := len(turns) - 1; i >= 0; i-- {
		parts = append(parts, fmt.Sprint(turns[i].N))
	}
	parts = append(parts, "|")
	for _, x := range redo {
		parts = append(parts, fmt.Sprint(x.N))
	}
	return strings.Join(parts, " ")
}

func (f *pullFixture) turn(r *turnback.Repo, name, data string) {
	f.t.Helper()
	ctx := f.t.Context()
	if _, err := r.Snap(ctx, ""); err != nil {
		f.t.Fatal(err)
	}
	treetest.Put(f.t, r.WorkTree(), name, data)
	if _, err := r.End(ctx); err != nil {
		f.t.Fatal(err)
	}
}

// TestRemotePullKeepsUndo: B clones and undoes turn 5 over an edit of
// its own (--force); a pull with nothing new keeps the undo: redo
// brings back what the undo replaced.
func TestRemotePullKeepsUndo(t *testing.T) {
	f := newPullFixture(t, "bucket-keep")
	ctx := t.Context()
	treetest.Put(t, f.b.WorkTree(), "src/turn.txt", "B's edit")
	if _, err := f.b.Undo(ctx, 1, turnback.UndoOptions{Force: true}); err != nil {
		t.Fatal(err)
	}
	before := stacks(t, f.b)
	if before != "1 2 3 4 | 5" {
		t.Fatalf("after undo: %s", before)
	}
	pr, err := Pull(ctx, f.b, f.c, PullOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := stacks(t, f.b); got != before || !pr.NothingNew {
		t.Fatalf("after pull: %s, %+v", got, pr)
	}
	if _, err := f.b.Redo(ctx, 1, turnback.RedoOptions{}); err != nil {
		t.Fatal(err)
	}
	// Redo puts back the state the undo replaced: turn 5's, with B's edit.
	want := f.states[4].Merge(treetest.Tree{"src/turn.txt": treetest.File("B's edit", 0o644)})
	treetest.Equal(t, "redo after pull", treetest.MustRead(t, f.b.WorkTree()), want)
}

// TestRemotePullAfterLocalUndo: B undoes turn 5 while A records turn 6
// and pushes. B's pull is refused (turnback.ErrDiverged, saying to redo first),
// changing nothing; after B's redo the pull brings turn 6.
func TestRemotePullAfterLocalUndo(t *testing.T) {
	f := newPullFixture(t, "bucket-undo")
	ctx := t.Context()
	if _, err := f.b.Undo(ctx, 1, turnback.UndoOptions{}); err != nil {
		t.Fatal(err)
	}
	f.turn(f.a, "six.txt", "six")
	if _, err := Push(ctx, f.a, f.c, PushOptions{}); err != nil {
		t.Fatal(err)
	}
	tree := treetest.MustRead(t, f.b.WorkTree())
	_, err := Pull(ctx, f.b, f.c, PullOptions{})
	const want = "turnback: the local session and the remote's have diverged: session s: turn 5 is undone here, " +
		"turn 6 is only on the remote; nothing was changed (redo, then pull; or push to replace the remote's " +
		"session with this one; or clone the remote's into another folder)"
	if !errors.Is(err, turnback.ErrDiverged) || err.Error() != want {
		t.Fatalf("pull over a local undo: %v", err)
	}
	if got := stacks(t, f.b); got != "1 2 3 4 | 5" {
		t.Fatalf("after a refused pull: %s", got)
	}
	treetest.Equal(t, "refused pull", treetest.MustRead(t, f.b.WorkTree()), tree)
	if _, err := f.b.Redo(ctx, 1, turnback.RedoOptions{}); err != nil {
		t.Fatal(err)
	}
	if pr, err := Pull(ctx, f.b, f.c, PullOptions{}); err != nil || pr.Turns != 6 || pr.NothingNew {
		t.Fatalf("pull after redo: %+v %v", pr, err)
	}
	if got := stacks(t, f.b); got != "1 2 3 4 5 6 |" {
		t.Fatalf("after pull: %s", got)
	}
}

// TestRemotePullRemoteUndo: A undoes turn 5 and pushes; B, unchanged
// since its clone, pulls the undo (turn 5 on its redo stack). Then B
// records a turn of its own (clearing its redo stack) while A redoes
// and pushes: B's pull is refused and B keeps its turn.
func TestRemotePullRemoteUndo(t *testing.T) {
	f := newPullFixture(t, "bucket-rundo")
	ctx := t.Context()
	if _, err := f.a.Undo(ctx, 1, turnback.UndoOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := Push(ctx, f.a, f.c, PushOptions{}); err != nil {
		t.Fatal(err)
	}
	if pr, err := Pull(ctx, f.b, f.c, PullOptions{}); err != nil || pr.NothingNew {
		t.Fatalf("pull of A's undo: %+v %v", pr, err)
	}
	if got := stacks(t, f.b); got != "1 2 3 4 | 5" {
		t.Fatalf("after pulling an undo: %s", got)
	}
	f.turn(f.b, "b.txt", "B's")
	if _, err := f.a.Redo(ctx, 1, turnback.RedoOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := Push(ctx, f.a, f.c, PushOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := Pull(ctx, f.b, f.c, PullOptions{}); !errors.Is(err, turnback.ErrDiverged) {
		t.Fatalf("pull over a new local turn: %v", err)
	}
	if got := stacks(t, f.b); got != "1 2 3 4 6 |" {
		t.Fatalf("after a refused pull: %s", got)
	}
}

// TestRemotePullOwnPush: a store that pushed and then redid, undid or
// recorded more pulls its own older head: nothing changes, whatever it
// did since.
func TestRemotePullOwnPush(t *testing.T) {
	srv := s3test.Start(t)
	ctx := t.Context()
	a, _, _ := rtSession(t, "s")
	c := srv.Client(t, "bucket-own", "")
	f := &pullFixture{t: t}
	for i, step := range []func(){
		func() { _, _ = a.Undo(ctx, 2, turnback.UndoOptions{}) },
		func() { _, _ = a.Redo(ctx, 1, turnback.RedoOptions{}) },
		func() { _, _ = a.Redo(ctx, 1, turnback.RedoOptions{}) },
		func() { _, _ = a.Undo(ctx, 1, turnback.UndoOptions{}) },
		func() { f.turn(a, "x.txt", "x") },
		func() { _, _ = a.Undo(ctx, 1, turnback.UndoOptions{}) },
	} {
		if _, err := Push(ctx, a, c, PushOptions{}); err != nil {
			t.Fatal(err)
		}
		step()
		want := stacks(t, a)
		pr, err := Pull(ctx, a, c, PullOptions{})
		if err != nil || !pr.NothingNew {
			t.Fatalf("step %d: pull of its own push: %+v %v", i, pr, err)
		}
		if got := stacks(t, a); got != want {
			t.Fatalf("step %d: %s after pull, %s before", i, got, want)
		}
	}
}

// TestRemotePullLegacyRecords: session records written before Rev (here:
// B's, with Rev and Revs taken out) fall back on the turns: B's undo
// over a remote with nothing B lacks is kept; with a new remote turn the
// pull is refused.
func TestRemotePullLegacyRecords(t *testing.T) {
	f := newPullFixture(t, "bucket-legacy")
	ctx := t.Context()
	if _, err := f.b.Undo(ctx, 1, turnback.UndoOptions{}); err != nil {
		t.Fatal(err)
	}
	strip := func() {
		t.Helper()
		if err := testhook.StripRevs(ctx, f.b, "s"); err != nil {
			t.Fatal(err)
		}
	}
	strip()
	if pr, err := Pull(ctx, f.b, f.c, PullOptions{}); err != nil || !pr.NothingNew {
		t.Fatalf("pull: %+v %v", pr, err)
	}
	if got := stacks(t, f.b); got != "1 2 3 4 | 5" {
		t.Fatalf("after pull: %s", got)
	}
	f.turn(f.a, "six.txt", "six")
	if _, err := Push(ctx, f.a, f.c, PushOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := Pull(ctx, f.b, f.c, PullOptions{}); !errors.Is(err, turnback.ErrDiverged) {
		t.Fatalf("pull: %v", err)
	}
	if _, err := f.b.Redo(ctx, 1, turnback.RedoOptions{}); err != nil {
		t.Fatal(err)
	}
	strip()
	if pr, err := Pull(ctx, f.b, f.c, PullOptions{}); err != nil || pr.NothingNew || stacks(t, f.b) != "1 2 3 4 5 6 |" {
		t.Fatalf("pull after redo: %+v %v %s", pr, err, stacks(t, f.b))
	}
}
