package turnback

import (
	"context"

	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/internal/model"
)

// skipInfoOfRoot returns what the capture of root skipped that its tree
// cannot tell (model.SkipInfo): from this process's memory of its
// recent captures, else from the snapshot's record; nil when neither
// knows (a snapshot recorded before these rules, or a state never
// recorded).
func (r *Repo) skipInfoOfRoot(ctx context.Context, root cas.Hash) (*model.SkipInfo, error) {
	if sk, ok := r.gitIdx.Skipped(root); ok {
		skip := model.SkipInfoOf(sk)
		skip.TrackedIgnored, _ = r.gitIdx.TrackedIgnored(root)
		return skip, nil
	}
	var rec model.SnapshotRecord
	ok, err := r.getJSON(ctx, model.SnapKey(root), &rec)
	if err != nil || !ok {
		return nil, err
	}
	return model.SkipInfoOfRecord(&rec), nil
}
