package turnback

// Notices: what undo and redo changed, kept for the agent whose session
// it is, so that its next prompt can tell the model (the CLI's agent
// hook prints it). An undo or redo adds an entry to its session's notice
// in the same commit as its other records (so a crash, or the recovery
// of an interrupted restore, records both or neither); SnapTaking
// removes the notice in the same commit as the snap that returns it. A
// notice is therefore returned at most once, and an undo after it is in
// the next one: a crash after the snap's commit loses only the notice
// that snap returned, never a later one, and never returns one twice.

import (
	"context"

	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/internal/model"
	"github.com/turnback/turnback/restore"
)

// NoticePaths is how many paths a notice entry keeps; the rest are
// counted in More.
const NoticePaths = model.NoticePaths

// noticeEntry returns the record of the session's notice with one entry
// added: op of turns, changing the paths of actions.
func (r *Repo) noticeEntry(ctx context.Context, op string, turns []int, actions []restore.Action) (cas.Entry, error) {
	n := &Notice{}
	if _, err := r.getJSON(ctx, model.NoticeKey(r.session), n); err != nil {
		return cas.Entry{}, err
	}
	var paths []string
	for _, a := range actions {
		paths = append(paths, a.Path)
	}
	n.Add(op, turns, paths)
	return cas.Entry{Key: model.NoticeKey(r.session), Value: model.EncodeJSON(n)}, nil
}

// SnapNotice is Snap that, with take, also takes the session's notice:
// the result's Notice holds what undo and redo changed since the last
// notice was taken (nil: nothing), and the same commit removes it.
func (r *Repo) SnapNotice(ctx context.Context, message string, take bool) (*SnapResult, error) {
	return r.snap(ctx, message, take)
}
