package turnback_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/turnback/turnback"
	"github.com/turnback/turnback/cas/s3"
	"github.com/turnback/turnback/cas/s3/s3test"
	"github.com/turnback/turnback/internal/remote"
)

// pullFixture: A records 5 turns of session "s" and pushes; B clones.
type pullFixture struct {
	t    *testing.T
	c    *s3.Client
	a, b *turnback.Repo
}

func newPullFixture(t *testing.T, bucket string) *pullFixture {
	srv := s3test.Start(t)
	ctx := t.Context()
	f := &pullFixture{t: t, c: srv.Client(t, bucket, "")}
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

// turn records one turn of r that writes data to name.
func (f *pullFixture) turn(r *turnback.Repo, name, data string) {
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

// turnBy records one turn of r whose changes edit makes in its folder.
func (f *pullFixture) turnBy(r *turnback.Repo, edit func(dir string)) {
	f.t.Helper()
	ctx := f.t.Context()
	if _, err := r.Snap(ctx, ""); err != nil {
		f.t.Fatal(err)
	}
	edit(r.WorkTree())
	if _, err := r.End(ctx); err != nil {
		f.t.Fatal(err)
	}
}

// pushPull pushes A's turns and pulls them into B.
func (f *pullFixture) pushPull() {
	f.t.Helper()
	ctx := f.t.Context()
	if _, err := remote.Push(ctx, f.a, f.c, remote.PushOptions{}); err != nil {
		f.t.Fatal(err)
	}
	if _, err := remote.Pull(ctx, f.b, f.c, remote.PullOptions{}); err != nil {
		f.t.Fatal(err)
	}
}
