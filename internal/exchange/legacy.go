package exchange

import (
	"context"
	"encoding/json"

	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/internal/model"
	"github.com/turnback/turnback/internal/testhook"
)

// Stores written before SessionRecord.Rev existed have session records
// without Rev and Revs. testhook.StripRevs makes such a record, for the
// remote's tests of a pull into an old store.
func init() { testhook.StripRevs = stripRevs }

// stripRevs takes Rev and Revs out of session's record in repo.
func stripRevs(ctx context.Context, repo any, session string) error {
	st := Open(repo)
	if err := st.Lock(ctx); err != nil {
		return err
	}
	defer st.Unlock()
	s, err := st.LoadSession(ctx, session)
	if err != nil {
		return err
	}
	s.Rev, s.Revs = "", nil
	data, err := json.Marshal(s)
	if err != nil {
		return err
	}
	return st.Commit(ctx, []cas.Entry{{Key: []byte(model.PrefixSess + session), Value: data}}, nil)
}
