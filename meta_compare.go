package turnback

import (
	"fmt"
	"os"

	"github.com/turnback/turnback/manifest"
)

// metaReason judges a path whose content is what was left there but
// whose owner or mode is not (see conflictReason). An owner change is a
// change made outside the turns. A path that lacks only setuid, setgid
// or sticky bits the state left there has is not: a restore run as root
// leaves those bits off when it cannot give the path its recorded owner
// (package restore), and nothing is lost by setting them again.
func metaReason(cur, left *manifest.Entry) (why string, decided bool) {
	if !ownersAgree(cur, left) {
		return fmt.Sprintf("owner changed since (%d:%d, was %d:%d)", cur.UID, cur.GID, left.UID, left.GID), true
	}
	const special = 0o7000
	if cur.Mode&special != 0 || cur.Mode|left.Mode&special != left.Mode {
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
