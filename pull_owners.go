package turnback

// Owners of pulled states. The trees a pull brings record the owners of
// the machine that captured them, which mean nothing here: the apply
// keeps each path's owner (pathstate.ForeignOwner). Left as they are,
// those owners would read as owner changes to status and as conflicts
// to undo, run as root, and undo or redo would hand paths to the
// remote's uid. So the apply records, store-locally (never pushed),
// which turns of the session were pulled (m/foreign/<session>): undo
// and redo read their states without owners, as the apply does. And it
// gives the session's last state, which status compares with, the
// folder's owners. The turn records stay the remote's: a later pull
// matches them.

import (
	"context"
	"slices"

	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/internal/model"
	"github.com/turnback/turnback/internal/pathstate"
	"github.com/turnback/turnback/manifest"
)

// foreignEntry is the session's foreign record with turns added.
func (r *Repo) foreignEntry(ctx context.Context, session string, turns []int) (cas.Entry, error) {
	f := &model.ForeignRecord{}
	if _, err := r.getJSON(ctx, []byte(model.PrefixForeign+session), f); err != nil {
		return cas.Entry{}, err
	}
	for _, n := range turns {
		if !slices.Contains(f.Turns, n) {
			f.Turns = append(f.Turns, n)
		}
	}
	slices.Sort(f.Turns)
	return cas.Entry{Key: []byte(model.PrefixForeign + session), Value: model.EncodeJSON(f)}, nil
}

// foreignTurns are the session's turns that pull --apply brought in.
func (r *Repo) foreignTurns(ctx context.Context, session string) (map[int]bool, error) {
	f := &model.ForeignRecord{}
	if _, err := r.getJSON(ctx, []byte(model.PrefixForeign+session), f); err != nil {
		return nil, err
	}
	out := map[int]bool{}
	for _, n := range f.Turns {
		out[n] = true
	}
	return out, nil
}

// foreignState reports whether a pull brought state h, which another
// machine captured (its snapshot record says so: the import marks it).
func (r *Repo) foreignState(ctx context.Context, h cas.Hash) (bool, error) {
	if h.IsZero() {
		return false, nil
	}
	rec := &model.SnapshotRecord{}
	_, err := r.getJSON(ctx, model.SnapKey(h), rec)
	return rec.Foreign, err
}

// localizeLast gives the session's last state, which pull --apply (or
// a restore of a pulled state) just brought in as last, the folder's
// owners (pathstate.WithOwners), so that status shows no owner change
// the folder did not make. It runs after the restore, holding the
// store. Not as root, owners are not compared, but modes are
// (pathstate.ForeignTarget).
func (r *Repo) localizeLast(ctx context.Context, session string, last cas.Hash) error {
	sess, err := r.loadSession(ctx, session)
	if err != nil || sess.Last != last.String() {
		return err
	}
	snap, err := r.capture(ctx)
	if err != nil {
		return err
	}
	masks, err := r.usedUmasks(ctx)
	if err != nil {
		return err
	}
	w := r.store.NewWriter()
	defer w.Cancel()
	n, err := pathstate.WithOwners(ctx, manifest.NewCachingLoader(r.loader()), w, last, snap.Root, masks)
	if err != nil || n == last {
		return err
	}
	if err := w.Flush(); err != nil {
		return err
	}
	rec := &model.SnapshotRecord{}
	if ok, err := r.getJSON(ctx, model.SnapKey(last), rec); err != nil {
		return err
	} else if !ok {
		rec = &model.SnapshotRecord{Version: model.MetaVersion, Kind: model.KindSnap}
	}
	rec.Foreign = false // the folder's owners
	sess.Last = n.String()
	e, _, err := r.mergeStored(ctx, cas.Entry{Key: model.SnapKey(n), Value: model.EncodeJSON(rec)})
	if err != nil {
		return err
	}
	return r.commit(ctx, []cas.Entry{e, model.SessionEntry(sess)}, nil)
}
