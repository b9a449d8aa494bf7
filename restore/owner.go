package restore

import (
	"errors"
	"io/fs"
	"os"
	"os/user"
	"strconv"

	"github.com/turnback/turnback/manifest"
)

// metaHandle is an entry whose owner and mode can be set.
type metaHandle interface {
	chown(uid, gid int) error
	chmod(fs.FileMode) error
	stat() (fs.FileInfo, error)
}

// asRoot reports whether restores give entries their recorded owner
// (the process may change owners); a variable so tests can check that
// path too.
var asRoot = os.Geteuid() == 0

// applyOwner gives the entry at h (the new entry e of path) its owner,
// then its mode; the order matters, as chown clears setuid and setgid.
//
// As root: the recorded owner when e has one; for an entry recorded
// without one (a tree from before owners were recorded), the owner of
// what is at path now, else of the directory it goes in. Setuid, setgid
// and sticky are set only if the entry's owner afterwards is the
// recorded one, and setuid (setgid) only if that user (group) exists on
// this system: root never creates a setuid or setgid file for anyone
// but its recorded owner. Not as root: owners are left as they are (the
// process's own) and the mode is set as recorded.
func applyOwner(h metaHandle, d *dirs, path string, e *manifest.Entry) error {
	mode := manifest.FileMode(e.Mode)
	if !asRoot {
		return h.chmod(mode)
	}
	special := manifest.FileModeMask &^ fs.ModePerm
	uid, gid, ok := -1, -1, false
	if e.Owned {
		uid, gid, ok = int(e.UID), int(e.GID), true
	} else if fi := currentOwnerInfo(d, path); fi != nil {
		uid, gid, ok = ownerIDs(fi)
	}
	if ok {
		if err := doChown(h, uid, gid); err != nil && !errors.Is(err, fs.ErrPermission) && !isInvalid(err) {
			return err
		}
	}
	if !e.Owned || !ownedAsRecorded(h, e) {
		mode &^= special
	} else {
		if mode&fs.ModeSetuid != 0 && !userExists(e.UID) {
			mode &^= fs.ModeSetuid
		}
		if mode&fs.ModeSetgid != 0 && !groupExists(e.GID) {
			mode &^= fs.ModeSetgid
		}
	}
	return h.chmod(mode)
}

// ownedAsRecorded reports whether h's owner is e's recorded owner.
func ownedAsRecorded(h metaHandle, e *manifest.Entry) bool {
	fi, err := h.stat()
	if err != nil {
		return false
	}
	uid, gid, ok := ownerIDs(fi)
	return ok && uid == int(e.UID) && gid == int(e.GID)
}

// currentOwnerInfo returns what is at path now, or else its nearest
// directory on disk (a new directory takes that one's owner too), whose
// owner an entry recorded without one takes.
func currentOwnerInfo(d *dirs, path string) fs.FileInfo {
	if fi, err := d.lstat(path); err == nil {
		return fi
	}
	dir, _ := manifest.SplitPath(path)
	for {
		if r, err := d.get(dir); err == nil {
			fi, err := r.Stat(".")
			if err != nil {
				return nil
			}
			return fi
		}
		if dir == "" {
			return nil
		}
		dir, _ = manifest.SplitPath(dir)
	}
}

// userExists and groupExists ask the system's user database (files
// only, without cgo): a setuid bit for an id nobody has is not restored.
var userExists = func(uid uint32) bool {
	_, err := user.LookupId(strconv.FormatUint(uint64(uid), 10))
	return err == nil
}

var groupExists = func(gid uint32) bool {
	_, err := user.LookupGroupId(strconv.FormatUint(uint64(gid), 10))
	return err == nil
}

// chownNew gives a just-made entry (a symlink's temporary name, a new
// directory) its owner as root: the recorded one, else that of what is
// at path now or of its directory. Not as root: nothing.
func chownNew(h metaHandle, d *dirs, path string, e *manifest.Entry) error {
	if !asRoot {
		return nil
	}
	uid, gid, ok := -1, -1, false
	if e.Owned {
		uid, gid, ok = int(e.UID), int(e.GID), true
	} else if fi := currentOwnerInfo(d, path); fi != nil {
		uid, gid, ok = ownerIDs(fi)
	}
	if !ok {
		return nil
	}
	if err := doChown(h, uid, gid); err != nil && !errors.Is(err, fs.ErrPermission) && !isInvalid(err) {
		return err
	}
	return nil
}

// chownHook, if set, replaces every chown (tests: a system that refuses
// it).
var chownHook func() error

func doChown(h metaHandle, uid, gid int) error {
	if chownHook != nil {
		return chownHook()
	}
	return h.chown(uid, gid)
}

// mkdirOwned makes directory name in r (path) and gives it its owner
// (chownNew, the parent's owner looked up before the directory exists).
// Its mode is set by the permission step, after everything inside.
func mkdirOwned(d *dirs, path string, r *os.Root, name string, e *manifest.Entry) error {
	var parent fs.FileInfo
	if asRoot && !e.Owned {
		parent = currentOwnerInfo(d, path)
	}
	if err := r.Mkdir(name, 0o700); err != nil {
		return err
	}
	if !asRoot {
		return nil
	}
	h := nameHandle{r, name}
	if e.Owned {
		return chownNew(h, d, path, e)
	}
	if parent == nil {
		return nil
	}
	uid, gid, ok := ownerIDs(parent)
	if !ok {
		return nil
	}
	if err := doChown(h, uid, gid); err != nil && !errors.Is(err, fs.ErrPermission) && !isInvalid(err) {
		return err
	}
	return nil
}

// setMeta is the permission step for an entry placed without staging (a
// directory, a symlink, or an entry whose mode or owner alone changes):
// owner then mode for dirs, files and fifos; the owner only for a
// symlink (its mode means nothing).
func setMeta(r *os.Root, name string, d *dirs, path string, e *manifest.Entry) error {
	h := nameHandle{r, name}
	if e.Kind == manifest.KindSymlink {
		if !asRoot || !e.Owned {
			return nil
		}
		return chownNew(h, d, path, e)
	}
	return applyOwner(h, d, path, e)
}

// DroppedSpecial returns the setuid, setgid and sticky bits of e that a
// restore run by this process leaves off (see applyOwner): as root, all
// of them for an entry recorded without an owner, and setuid (setgid)
// when its user (group) does not exist here. Not as root it leaves none
// off on purpose. A path lacking exactly such bits is as a restore left
// it; lacking any other is a change made since.
func DroppedSpecial(e *manifest.Entry) uint32 {
	if !asRoot || e.Mode&manifest.ModeSpecial == 0 {
		return 0
	}
	if !e.Owned {
		return e.Mode & manifest.ModeSpecial
	}
	var off uint32
	if e.Mode&manifest.ModeSetuid != 0 && !userExists(e.UID) {
		off |= manifest.ModeSetuid
	}
	if e.Mode&manifest.ModeSetgid != 0 && !groupExists(e.GID) {
		off |= manifest.ModeSetgid
	}
	return off
}
