package pathstate

import (
	"fmt"
	"os"

	"github.com/turnback/turnback/manifest"
	"github.com/turnback/turnback/restore"
)

// Same reports whether a path holding cur needs no change to hold
// want. Directories compare by kind and permission bits (their contents
// are separate paths).
func Same(cur, want *manifest.Entry) bool {
	if cur == nil || want == nil {
		return cur == nil && want == nil
	}
	if cur.Kind != want.Kind || !OwnersAgree(cur, want) {
		return false
	}
	switch cur.Kind {
	case manifest.KindFIFO:
		return cur.Mode == want.Mode
	case manifest.KindDir:
		return cur.Mode == want.Mode && cur.Uncaptured == want.Uncaptured
	case manifest.KindSymlink:
		return cur.Target == want.Target
	}
	if cur.Mode != want.Mode || cur.Size != want.Size {
		return false
	}
	if !cur.Hash.IsZero() && !want.Hash.IsZero() {
		// Both contents known (a file over the size limit is hashed even
		// though it is not stored).
		return cur.Hash == want.Hash
	}
	return cur.Uncaptured && want.Uncaptured
}

// MetaReason judges a path whose content is what was left there but
// whose owner or mode is not (see the root's conflictReason). An owner
// change is a change made outside the turns. A path that lacks only
// setuid, setgid or sticky bits that a restore leaves off
// (restore.DroppedSpecial: run as root, for an owner unknown here or
// not recorded) is as a restore left it, not a change; nothing is lost
// by setting them again. Any other missing bit is a change made since.
func MetaReason(cur, left *manifest.Entry) (why string, decided bool) {
	if !OwnersAgree(cur, left) {
		return fmt.Sprintf("owner changed since (%d:%d, was %d:%d)", cur.UID, cur.GID, left.UID, left.GID), true
	}
	const special = 0o7000
	dropped := restore.DroppedSpecial(left)
	if dropped == 0 || cur.Mode&special != left.Mode&special&^dropped {
		return "", false
	}
	withBits := *cur
	withBits.Mode = left.Mode
	if Same(&withBits, left) {
		return "", true
	}
	return "", false
}

// OwnersMatter: only a restore run as root sets owners (package
// restore), so only then is a path's owner part of its state. Not as
// root, a path the restore recreated is the user's whatever the tree
// recorded, and that difference must not read as an edit. Tests may
// set it.
var OwnersMatter = os.Geteuid() == 0

// OwnersAgree reports whether a and b have the same owner, or owners do
// not matter (OwnersMatter).
func OwnersAgree(a, b *manifest.Entry) bool { return !OwnersMatter || a.SameOwner(b) }
