package turnback

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/internal/model"
)

// skipInfoOfRoot returns what the capture of root skipped that its tree
// cannot tell (model.SkipInfo): from the snapshot's record, merged with
// this process's memory of its latest capture, as a record is
// (model.MergeSkips); nil when neither knows (a snapshot recorded
// before these rules, or a state never recorded).
func (r *Repo) skipInfoOfRoot(ctx context.Context, root cas.Hash) (*model.SkipInfo, error) {
	var rec model.SnapshotRecord
	ok, err := r.getJSON(ctx, model.SnapKey(root), &rec)
	if err != nil {
		return nil, err
	}
	var stored *model.SkipInfo
	if ok {
		stored = model.SkipInfoOfRecord(&rec)
	}
	if sk, ok := r.gitIdx.Skipped(root); ok {
		skip := model.SkipInfoOf(sk)
		skip.TrackedIgnored, _ = r.gitIdx.TrackedIgnored(root)
		return model.MergeSkips(stored, skip), nil
	}
	return stored, nil
}

// snapshotEntry is the snapshot record of state h (model.SnapshotEntry)
// merged with the one h has (mergeStored).
func (r *Repo) snapshotEntry(ctx context.Context, h cas.Hash, kind string, files, bytes int64, skip *model.SkipInfo) (cas.Entry, error) {
	e, _, err := r.mergeStored(ctx, model.SnapshotEntry(h, kind, files, bytes, skip))
	return e, err
}

// mergeStored is the snapshot record e merged with the one stored under
// its key: captures of one tree share its id, so the record keeps what
// each skipped (model.MergeSnapshot). Every writer of a snapshot record
// goes through it. It returns the stored record too, nil if none. One
// that does not decode is replaced, as before records were merged.
func (r *Repo) mergeStored(ctx context.Context, e cas.Entry) (cas.Entry, *model.SnapshotRecord, error) {
	data, err := r.backend.Get(ctx, e.Key)
	if errors.Is(err, cas.ErrNotFound) {
		return e, nil, nil
	}
	if err != nil {
		return cas.Entry{}, nil, err
	}
	old := &model.SnapshotRecord{}
	if json.Unmarshal(data, old) != nil {
		return e, nil, nil
	}
	return model.MergeSnapshot(old, e), old, nil
}
