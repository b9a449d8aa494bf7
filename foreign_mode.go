package turnback

// Permission bits of pulled states. A state another machine captured
// records that machine's modes: a 0777 script there would land world
// writable here. A restore of such a state clears group and other
// write, and the bits the process umask clears, whatever umask started
// the process (a daemon's may be 000). Local states keep exact modes.

import (
	"context"

	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/internal/model"
	"github.com/turnback/turnback/internal/pathstate"
	"github.com/turnback/turnback/internal/umask"
	"github.com/turnback/turnback/manifest"
)

// usedUmasks: a pulled path held as one of them clears is no edit.
func (r *Repo) usedUmasks(ctx context.Context) (ms umask.Masks, err error) {
	_, err = r.getJSON(ctx, []byte(model.KeyUmasks), &ms)
	return ms, err
}

// noteUmask records pathstate.ForeignUmask before a restore writes
// anything.
func (r *Repo) noteUmask(ctx context.Context) error {
	ms, err := r.usedUmasks(ctx)
	ms, add := ms.With(pathstate.ForeignUmask)
	if err != nil || !add {
		return err
	}
	return r.commit(ctx, []cas.Entry{{Key: []byte(model.KeyUmasks), Value: model.EncodeJSON(ms)}}, nil)
}

// foreignLeft makes left, what state expected holds at some paths, what
// a restore of expected here wrote, if another machine captured it (a
// clone of a session that ends in an undo): the folder holds each path
// with its own owner and the masked mode, which is no edit. A state a
// redo step made has no record: the undo's checkpoint cp tells.
func (r *Repo) foreignLeft(ctx context.Context, l manifest.Loader, expected, cp, now cas.Hash, left map[string]*manifest.Entry) error {
	foreign, err := r.foreignState(ctx, expected)
	if err == nil && !foreign {
		foreign, err = r.foreignState(ctx, cp)
	}
	if err != nil || !foreign {
		return err
	}
	pulled := map[string]*manifest.Entry{}
	for p, e := range left {
		left[p], pulled[p] = pathstate.ForeignTarget(e), e
	}
	return r.heldAsPulled(ctx, l, now, left, pulled)
}

// heldAsPulled: left holds what a restore here writes
// (pathstate.ForeignTarget) where pulled holds the pulled state's entry
// as recorded. A path the folder (now) holds as a restore here wrote it
// with another mask (a shell and a watch daemon may differ) is no edit
// either: left takes it.
func (r *Repo) heldAsPulled(ctx context.Context, l manifest.Loader, now cas.Hash, left, pulled map[string]*manifest.Entry) error {
	masks, err := r.usedUmasks(ctx)
	if err != nil {
		return err
	}
	for p, e := range pulled {
		if e == nil || pathstate.Same(e, left[p]) {
			continue
		}
		cur, err := manifest.Find(ctx, l, now, p)
		if err != nil {
			return err
		}
		if pathstate.WrittenFrom(cur, e, masks) {
			left[p] = cur
		}
	}
	return nil
}
