package turnback

import (
	"errors"

	"github.com/turnback/turnback/restore"
)

// ErrDotGit: an undo, redo, restore or clone would write or remove a
// path through a spelling of ".git" (".GIT", ".git.", "git~1"...), which
// on a case-insensitive, HFS+ or NTFS filesystem is git's repository.
// Capture never records such a path, so the tree is damaged or hostile
// (a remote's, say); the command changes nothing.
var ErrDotGit = restore.ErrDotGit

// refuseDotGit fails, naming the path, if an action would change a path
// through a spelling of ".git". It runs before the ignore rules are
// applied: they ignore such paths too, and would drop the action with a
// note where the command must refuse.
func refuseDotGit(actions []restore.Action) error {
	for _, a := range actions {
		if err := restore.ValidPath(a.Path); errors.Is(err, restore.ErrDotGit) {
			return err
		}
	}
	return nil
}
