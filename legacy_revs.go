package turnback

import (
	"context"

	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/internal/testhook"
)

// Stores written before Session.Rev existed have session records
// without Rev and Revs. testhook.StripRevs makes such a record, for the
// remote's tests of a pull into an old store.
func init() {
	testhook.StripRevs = func(ctx context.Context, repo any, session string) error {
		return repo.(*Repo).stripRevs(ctx, session)
	}
}

// stripRevs takes Rev and Revs out of session's record.
func (r *Repo) stripRevs(ctx context.Context, session string) error {
	if err := r.lock(ctx); err != nil {
		return err
	}
	defer r.unlock()
	s, err := r.loadSession(ctx, session)
	if err != nil {
		return err
	}
	s.Rev, s.Revs = "", nil
	return r.commit(ctx, []cas.Entry{{Key: []byte(prefixSess + session), Value: encodeJSON(s)}}, nil)
}
