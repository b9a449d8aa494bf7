package turnback_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/turnback/turnback"
	"github.com/turnback/turnback/cas/s3"
	"github.com/turnback/turnback/cas/s3/s3test"
	"github.com/turnback/turnback/internal/remote"
)

// legacyFixture: A records 5 turns of session "s" and pushes; B clones.
// (internal/remote's tests have the same, with more content; this one
// is here for turnback.StripRevs.)
type legacyFixture struct {
	t    *testing.T
	c    *s3.Client
	a, b *turnback.Repo
}

func newLegacyFixture(t *testing.T, bucket string) *legacyFixture {
	srv := s3test.Start(t)
	ctx := t.Context()
	f := &legacyFixture{t: t, c: srv.Client(t, bucket, "")}
	var err error
	f.a, err = turnback.Open(ctx, t.TempDir(), turnback.Options{Store: t.TempDir(), Session: "s"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.a.Close() })
	for i := 1; i <= 5; i++ {
		f.turn(f.a, "turn.txt", strings.Repeat("turn ", i))
	}
	if _, err := remote.Push(ctx, f.a, f.c, remote.PushOptions{}); err != nil {
		t.Fatal(err)
	}
	dirB, storeB := t.TempDir(), filepath.Join(t.TempDir(), "store")
	if _, err := remote.Clone(ctx, f.c, srv.Config(bucket, ""), dirB, turnback.Options{Store: storeB, Session: "s"}); err != nil {
		t.Fatal(err)
	}
	f.b, err = turnback.Open(ctx, dirB, turnback.Options{Store: storeB, Session: "s"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.b.Close() })
	return f
}

func (f *legacyFixture) turn(r *turnback.Repo, name, data string) {
	f.t.Helper()
	ctx := f.t.Context()
	if _, err := r.Snap(ctx, ""); err != nil {
		f.t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(r.WorkTree(), name), []byte(data), 0o644); err != nil {
		f.t.Fatal(err)
	}
	if _, err := r.End(ctx); err != nil {
		f.t.Fatal(err)
	}
}

// legacyStacks describes r's session: its turns oldest first, then "|"
// and the turns on its redo stack.
func legacyStacks(t *testing.T, r *turnback.Repo) string {
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

// TestRemotePullLegacyRecords: session records written before Rev (here:
// B's, with Rev and Revs taken out) fall back on the turns: B's undo
// over a remote with nothing B lacks is kept; with a new remote turn the
// pull is refused.
func TestRemotePullLegacyRecords(t *testing.T) {
	f := newLegacyFixture(t, "bucket-legacy")
	ctx := t.Context()
	if _, err := f.b.Undo(ctx, 1, turnback.UndoOptions{}); err != nil {
		t.Fatal(err)
	}
	strip := func() {
		t.Helper()
		if err := turnback.StripRevs(ctx, f.b, "s"); err != nil {
			t.Fatal(err)
		}
	}
	strip()
	if pr, err := remote.Pull(ctx, f.b, f.c, remote.PullOptions{}); err != nil || !pr.NothingNew {
		t.Fatalf("pull: %+v %v", pr, err)
	}
	if got := legacyStacks(t, f.b); got != "1 2 3 4 | 5" {
		t.Fatalf("after pull: %s", got)
	}
	f.turn(f.a, "six.txt", "six")
	if _, err := remote.Push(ctx, f.a, f.c, remote.PushOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := remote.Pull(ctx, f.b, f.c, remote.PullOptions{}); !errors.Is(err, turnback.ErrDiverged) {
		t.Fatalf("pull: %v", err)
	}
	if _, err := f.b.Redo(ctx, 1, turnback.RedoOptions{}); err != nil {
		t.Fatal(err)
	}
	strip()
	if pr, err := remote.Pull(ctx, f.b, f.c, remote.PullOptions{}); err != nil || pr.NothingNew || legacyStacks(t, f.b) != "1 2 3 4 5 6 |" {
		t.Fatalf("pull after redo: %+v %v %s", pr, err, legacyStacks(t, f.b))
	}
}
