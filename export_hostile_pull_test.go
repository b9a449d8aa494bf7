package turnback

import (
	"testing"

	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/internal/model"
)

// HostileLast makes the newest turn of r's session end in a crafted
// tree: its after-state plus name/config holding cfg.txt's content (see
// dgCraft), as a hostile remote's store holds. The session's last state
// becomes that tree.
func HostileLast(t *testing.T, r *Repo, name string) {
	t.Helper()
	ctx := t.Context()
	sess, err := r.loadSession(ctx, r.session)
	if err != nil {
		t.Fatal(err)
	}
	turn, err := r.loadTurn(ctx, r.session, sess.Turns[len(sess.Turns)-1])
	if err != nil {
		t.Fatal(err)
	}
	hostile := dgCraft(t, r, turn.After, name)
	turn.After, sess.Last = hostile, hostile.String()
	err = r.commit(ctx, []cas.Entry{model.TurnEntry(turn), model.SessionEntry(sess), model.SnapshotEntry(hostile, model.KindSnap, 0, 0, &model.SkipInfo{}),
		{Key: []byte(model.KeyLatest), Value: []byte(hostile.String())}}, nil)
	if err != nil {
		t.Fatal(err)
	}
}
