package turnback

import (
	"context"
	"fmt"

	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/internal/model"
)

// pullEnding is what a snap or end that rewrites sess ends: the
// session's pending apply (validPulled), with the restore that still
// brings the pulled turns in. nil when no pull is pending.
func (r *Repo) pullEnding(ctx context.Context, sess *model.SessionRecord) (*PullEnded, error) {
	m, err := r.validPulled(ctx, sess)
	if err != nil || m == nil {
		return nil, err
	}
	last, err := cas.ParseHash(m.Last)
	if err != nil {
		return nil, fmt.Errorf("%w: pulled record of session %s: %v", cas.ErrCorrupt, sess.Name, err)
	}
	out := &PullEnded{Session: sess.Name, Turns: m.Turns, Restore: last.String()}
	if n := len(sess.Turns); n > 0 {
		t, err := r.loadTurn(ctx, sess.Name, sess.Turns[n-1])
		if err != nil {
			return nil, err
		}
		switch {
		case !t.Open() && t.After == last:
			out.Restore = fmt.Sprintf("@%d", t.N)
		case t.Before == last:
			out.Restore = fmt.Sprintf("@%d^", t.N)
		}
	}
	return out, nil
}
