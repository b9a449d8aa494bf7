package turnback

// Test-only API for the package's external tests (package
// turnback_test), which may also import packages that import this one
// (internal/remote).

import (
	"testing"

	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/internal/model"
	"github.com/turnback/turnback/manifest/treetest"
)

// SetRestoreHook sets a function every restore this Repo runs calls
// before each named step (see restore.Options.Hook); an error from it
// fails the step.
func (r *Repo) SetRestoreHook(h func(step string) error) { r.hook = h }

// HostileSession makes a folder whose default session's newest state
// (its turn 1's after-state) holds name/config, git's config under a
// spelling of .git: a tree no capture makes, as a crafted store holds.
// It returns the open Repo and the folder.
func HostileSession(t *testing.T, name string) (*Repo, string) {
	t.Helper()
	ctx := t.Context()
	r, work := dgWork(t)
	if _, err := r.Snap(ctx, "turn"); err != nil {
		t.Fatal(err)
	}
	treetest.Put(t, work, "a.txt", "a after\n")
	s2, err := r.End(ctx)
	if err != nil {
		t.Fatal(err)
	}
	hostile := dgCraft(t, r, s2.Snapshot, name)
	turn, err := r.loadTurn(ctx, DefaultSession, 1)
	if err != nil {
		t.Fatal(err)
	}
	sess, err := r.loadSession(ctx, DefaultSession)
	if err != nil {
		t.Fatal(err)
	}
	turn.After, sess.Last = hostile, hostile.String()
	err = r.commit(ctx, []cas.Entry{model.TurnEntry(turn), model.SessionEntry(sess), model.SnapshotEntry(hostile, model.KindSnap, 0, 0, &model.SkipInfo{}),
		{Key: []byte(model.KeyLatest), Value: []byte(hostile.String())}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return r, work
}
