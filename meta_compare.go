package turnback

import (
	"fmt"
	"os"

	"github.com/turnback/turnback/manifest"
	"github.com/turnback/turnback/restore"
)

// metaReason judges a path whose content is what was left there but
// whose owner or mode is not (see conflictReason). An owner change is a
// change made outside the turns. A path that lacks only setuid, setgid
// or sticky bits that a restore leaves off (restore.DroppedSpecial: run
// as root, for an owner unknown here or not recorded) is as a restore
// left it, not a change; nothing is lost by setting them again. Any
// other missing bit is a change made since.
func metaReason(cur, left *manifest.Entry) (why string, decided bool) {
	if !ownersAgree(cur, left) {
		return fmt.Sprintf("owner changed since (%d:%d, was %d:%d)", cur.UID, cur.GID, left.UID, left.GID), true
	}
	const special = 0o7000
	dropped := restore.DroppedSpecial(left)
	if dropped == 0 || cur.Mode&special != left.Mode&special&^dropped {
		return "", false
	}
	withBits := *cur
	withBits.Mode = left.Mode
	if sameState(&withBits, left) {
		return "", true
	}
	return "", false
}

// ownersMatter: only a restore run as root sets owners (package
// restore), so only then is a path's owner part of its state. Not as
// root, a path the restore recreated is the user's whatever the tree
// recorded, and that difference must not read as an edit.
var ownersMatter = os.Geteuid() == 0

func ownersAgree(a, b *manifest.Entry) bool { return !ownersMatter || a.SameOwner(b) }
