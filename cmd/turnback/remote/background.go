package remote

import (
	"os"
	"path/filepath"
)

// pushLock is the file in the store directory whose lock background
// pushes take one at a time.
const pushLock = "push.lock"

// serialize waits until no other background push of the store runs and
// returns what ends this one's turn. Pushes of one session that overlap
// could write their heads in the other order, the older state last; one
// at a time, each reads the session's records after the previous push
// wrote its head.
func serialize(logPath string) (release func(), err error) {
	f, err := os.OpenFile(filepath.Join(filepath.Dir(logPath), pushLock), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, err
	}
	if err := lockFile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() { f.Close() }, nil
}
