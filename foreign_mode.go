package turnback

// Permission bits of pulled states. A state another machine captured
// records that machine's modes: a 0777 script there would land world
// writable here. As git does on checkout, a restore of such a state
// clears the permission bits the process umask clears, so a pull never
// grants more than a file made here would get. Local states keep their
// exact modes.

import (
	"context"

	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/internal/umask"
	"github.com/turnback/turnback/manifest"
)

// foreignUmask is the process umask, read once when the program starts.
// A watch daemon serving the folder applies its own.
var foreignUmask = umask.Read()

// foreignMode is the mode a restore here writes for entry e of a pulled
// state: no permission bit the umask clears. Not as root, no setuid,
// setgid or sticky bit either; as root the restore leaves them off, as
// it does for any path whose owner the tree does not record. A
// symlink's mode means nothing and stays.
func foreignMode(e *manifest.Entry) uint32 {
	m := e.Mode
	if !ownersMatter {
		m &^= manifest.ModeSpecial
	}
	if e.Kind == manifest.KindSymlink {
		return m
	}
	return m &^ (foreignUmask & manifest.ModePerm)
}

// foreignLeft makes left, what state expected holds at some paths, what
// a restore of expected here wrote, if another machine captured it (a
// clone of a session that ends in an undo): the folder holds each path
// with its own owner and the masked mode, which is no edit.
func (r *Repo) foreignLeft(ctx context.Context, l manifest.Loader, expected, now cas.Hash, left map[string]*manifest.Entry) error {
	foreign, err := r.foreignState(ctx, expected)
	if err != nil || !foreign {
		return err
	}
	pulled := map[string]*manifest.Entry{}
	for p, e := range left {
		left[p], pulled[p] = foreignTarget(e), e
	}
	return heldAsPulled(ctx, l, now, left, pulled)
}

// heldAsPulled: left holds what a restore here writes (foreignTarget)
// where pulled holds the pulled state's entry as recorded. A path the
// folder (now) holds as a restore wrote it with another umask (a shell
// and a watch daemon may differ) is no edit either: left takes it.
func heldAsPulled(ctx context.Context, l manifest.Loader, now cas.Hash, left, pulled map[string]*manifest.Entry) error {
	for p, e := range pulled {
		if e == nil || sameState(e, left[p]) {
			continue
		}
		cur, err := manifest.Find(ctx, l, now, p)
		if err != nil {
			return err
		}
		if writtenFrom(cur, e) {
			left[p] = cur
		}
	}
	return nil
}

// writtenFrom reports whether cur is what a restore here may have
// written for entry e of a pulled state: e's content, owned by anyone,
// with some of e's permission bits.
func writtenFrom(cur, e *manifest.Entry) bool {
	if cur == nil || cur.Kind != e.Kind || cur.Kind == manifest.KindSymlink || cur.Mode&^e.Mode != 0 {
		return false
	}
	c := *cur
	c.Mode = e.Mode
	return sameState(&c, foreignOwner(e))
}
