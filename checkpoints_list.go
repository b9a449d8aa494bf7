package turnback

// Listing the store's checkpoints (Repo.Checkpoints), here and through a
// daemon (GET /v1/checkpoints).

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/internal/model"
)

// Checkpoints lists the checkpoints the store keeps, the newest first:
// the states undo, redo and restore replaced, each a way back for
// Restore (see records.go for how long they are kept).
func (r *Repo) Checkpoints(ctx context.Context) ([]Checkpoint, error) {
	return r.be.CheckpointList(ctx)
}

func (l localRepo) CheckpointList(ctx context.Context) ([]Checkpoint, error) {
	r := l.r
	if err := r.lock(ctx); err != nil {
		return nil, err
	}
	defer r.unlock()
	list, err := r.checkpoints(ctx)
	if err != nil {
		return nil, err
	}
	for i := range list {
		h, err := cas.ParseHash(list[i].ID)
		if err != nil {
			return nil, fmt.Errorf("%w: checkpoint %q: %v", cas.ErrCorrupt, list[i].ID, err)
		}
		if list[i].Partial, err = r.partialCount(ctx, h); err != nil {
			return nil, err
		}
	}
	sortCheckpoints(list)
	return list, nil
}

// partialCount marks state h when it is a partial state, as restore
// of it finds it (partialOf); nil when it is whole.
func (r *Repo) partialCount(ctx context.Context, h cas.Hash) (*PartialCount, error) {
	var rec model.SnapshotRecord
	ok, err := r.getJSON(ctx, model.SnapKey(h), &rec)
	if err != nil || !ok || !rec.Partial {
		return nil, err
	}
	return &PartialCount{Paths: len(rec.Paths)}, nil
}

// sortCheckpoints orders list newest first, then by id.
func sortCheckpoints(list []Checkpoint) {
	slices.SortFunc(list, func(a, b Checkpoint) int {
		if c := b.Time.Compare(a.Time); c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	})
}
