package daemon

import (
	"fmt"
	"os"
	"path/filepath"
)

// AnnouncedName is the file, in the store, that says the user was told
// once that a daemon starts by itself there.
const AnnouncedName = "watch.announced"

// Announce returns the line that tells the user, once per store, that
// the command started a watch daemon: why, when it stops and how to stop
// it. It returns "" when l started none or the store's marker says the
// user was told; otherwise it writes the marker. The caller prints the
// line only on a terminal.
func Announce(l *Local) string {
	if l == nil || !l.Started {
		return ""
	}
	marker := filepath.Join(l.StoreDir, AnnouncedName)
	if _, err := os.Lstat(marker); err == nil {
		return ""
	}
	if err := os.WriteFile(marker, []byte("the automatic watch daemon was announced\n"), 0o600); err != nil {
		// Without the marker the line would come back on every start.
		return ""
	}
	why := fmt.Sprintf("%d files", l.Captured)
	if l.TimedOut {
		// The capture stopped counting before the end.
		why = fmt.Sprintf("%d+ files", max(l.Captured, 0))
	}
	return fmt.Sprintf("turnback: started a watch daemon for this folder (%s), it stops after %d idle minutes; stop it now: turnback watch --stop; never start one: TURNBACK_AUTO_WATCH=0\n",
		why, int(Idle.Minutes()))
}
