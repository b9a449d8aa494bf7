package pathstate

import (
	"context"

	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/internal/umask"
	"github.com/turnback/turnback/manifest"
)

// ForeignUmask is the mask of pulled states, from the process umask
// read once at start (a watch daemon serving the folder reads its own).
// Tests may set it.
var ForeignUmask = umask.Pulled(umask.Read())

// ForeignMode is the mode a restore here writes for entry e of a pulled
// state: no permission bit the umask clears. Not as root, no setuid,
// setgid or sticky bit either; as root the restore leaves them off, as
// it does for any path whose owner the tree does not record. A
// symlink's mode means nothing and stays.
func ForeignMode(e *manifest.Entry) uint32 {
	m := e.Mode
	if !OwnersMatter {
		m &^= manifest.ModeSpecial
	}
	if e.Kind == manifest.KindSymlink {
		return m
	}
	return m &^ (ForeignUmask & manifest.ModePerm)
}

// WrittenFrom reports whether cur is what a restore here wrote, with
// one of masks, for entry e of a pulled state: e's content, owned by
// anyone, e's permission bits less the mask's, no bit e lacks.
func WrittenFrom(cur, e *manifest.Entry, masks umask.Masks) bool {
	if cur == nil || cur.Kind != e.Kind || cur.Kind == manifest.KindSymlink || cur.Mode&^e.Mode != 0 || !masks.Masked(cur.Mode, e.Mode) {
		return false
	}
	c := *cur
	c.Mode = e.Mode
	return Same(&c, ForeignOwner(e))
}

// ForeignOwner is e without its owner: the pulled trees record the
// owners of the machine that captured them, which mean nothing here. A
// restore as root then keeps the owner of what the path holds (else
// takes its directory's) and sets no setuid, setgid or sticky bit, and
// an owner changed in the folder is no conflict.
func ForeignOwner(e *manifest.Entry) *manifest.Entry {
	if e == nil || !e.Owned {
		return e
	}
	c := *e
	c.Owned, c.UID, c.GID = false, 0, 0
	return &c
}

// ForeignTarget is ForeignOwner(e) for an entry of a pulled state that
// a restore writes, with the mode a file made here would get
// (ForeignMode): no special bit, no permission the umask clears.
func ForeignTarget(e *manifest.Entry) *manifest.Entry {
	if e == nil || ForeignMode(e) == e.Mode {
		return ForeignOwner(e)
	}
	c := *ForeignOwner(e)
	c.Mode = ForeignMode(e)
	return &c
}

// WithOwners is state s, which another machine captured, made the
// folder's (the folder's state is folder), so that it can be recorded
// as a local state: a path the folder holds with the same content
// takes the folder's owner and mode; any other path takes the folder's
// owner if it holds one of the same kind (else none) and loses the
// setuid, setgid and sticky bits, which are the other machine's, and
// the permission bits the umask clears (ForeignMode), unless the
// folder holds that content, or that directory, with those permissions
// or as a restore with one of masks wrote them.
func WithOwners(ctx context.Context, l manifest.Loader, w manifest.Saver, s, folder cas.Hash, masks umask.Masks) (cas.Hash, error) {
	edits := map[string]*manifest.Entry{}
	err := manifest.Diff(ctx, l, s, folder, func(c manifest.Change) error {
		o := c.Old
		if o == nil || !o.Owned && o.Mode&manifest.ModeSpecial == 0 && ForeignMode(o) == o.Mode {
			return nil
		}
		e := *o
		e.Mode = ForeignMode(o) &^ manifest.ModeSpecial
		if n := c.New; n != nil && n.Kind == o.Kind && n.Owned {
			if o.Owned {
				e.UID, e.GID = n.UID, n.GID
			}
			same := n.Hash == o.Hash && n.Target == o.Target && n.Size == o.Size
			if p := n.Mode &^ manifest.ModeSpecial; p == e.Mode || (same || o.Kind == manifest.KindDir) && (p == o.Mode&^manifest.ModeSpecial || masks.Masked(p, o.Mode)) {
				e.Mode = p // as a restore writes it, or as the folder holds it
				if same {
					e.Mode = n.Mode // the folder holds this content: its mode is the truth
				}
			}
		} else if o.Owned {
			e.Owned, e.UID, e.GID = false, 0, 0
		}
		if e == *o {
			return nil
		}
		edits[c.Path] = &e
		return nil
	})
	if err != nil || len(edits) == 0 {
		return s, err
	}
	return manifest.Edit(ctx, l, w, s, edits)
}
