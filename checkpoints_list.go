package turnback

// Listing the store's checkpoints (Repo.Checkpoints), here and through a
// daemon (GET /v1/checkpoints).

import (
	"cmp"
	"context"
	"slices"
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
	sortCheckpoints(list)
	return list, nil
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
