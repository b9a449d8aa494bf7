package turnback

// Partial states: an undo's or redo's checkpoint (and its result) is
// recorded with the paths it vouches for, the paths the command could
// write. Without a watcher the command reads only those paths and the
// names on the way to them (scoped.go), so elsewhere the state holds
// an earlier capture's content. Restore of such a state puts back those paths alone.

import (
	"context"
	"strings"

	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/internal/model"
	"github.com/turnback/turnback/internal/treepath"
)

// vouch is the set of paths a partial state vouches for.
type vouch struct {
	paths []string // sorted, each once
}

// newVouch returns the vouch for the paths given (any order, repeats
// allowed).
func newVouch(paths []string) *vouch {
	return &vouch{paths: treepath.SortedUnique(append([]string(nil), paths...))}
}

// list returns the paths, nil for no vouch (a whole state).
func (v *vouch) list() []string {
	if v == nil {
		return nil
	}
	return append([]string{}, v.paths...)
}

// stateEntry is the snapshot record of state h of the kind given. With
// scope it is partial, vouching for scope's paths, unless h is
// recorded already as a whole state: it stays whole, so that restore
// by the id snap, end, log or restore gave puts back the whole folder.
// (An undo's scoped checkpoint is often the tree of the turn's end,
// and its result the tree before the turn.) A partial record already
// there is replaced: its paths may lie in directories this capture
// took unread. The skips are merged with the record's (mergeStored).
func (r *Repo) stateEntry(ctx context.Context, h cas.Hash, kind string, skip *model.SkipInfo, scope *vouch) (cas.Entry, error) {
	e, old, err := r.mergeStored(ctx, model.SnapshotEntry(h, kind, 0, 0, skip))
	if err != nil || scope == nil || (old != nil && !old.Partial) {
		return e, err
	}
	return model.PartialEntry(e, scope.paths), nil
}

// partialOf returns the partial state h is, nil if h is whole.
func (r *Repo) partialOf(ctx context.Context, h cas.Hash) (*PartialState, error) {
	var rec model.SnapshotRecord
	ok, err := r.getJSON(ctx, model.SnapKey(h), &rec)
	if err != nil || !ok || !rec.Partial {
		return nil, err
	}
	of, err := r.partialOp(ctx, h)
	if err != nil {
		return nil, err
	}
	return &PartialState{Of: of, Paths: append([]string{}, rec.Paths...)}, nil
}

// partialOp names the command that made a partial state from its
// checkpoint record ("undo turn 3"), "" if unknown.
func (r *Repo) partialOp(ctx context.Context, h cas.Hash) (string, error) {
	var rec model.CheckpointRecord
	ok, err := r.getJSON(ctx, model.CheckpointKey(h), &rec)
	if err != nil || !ok {
		return "", err
	}
	return strings.TrimSpace(rec.Command), nil
}
